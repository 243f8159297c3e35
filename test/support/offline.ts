/** The HTTP harness for e2e and browser tests; the implementation is shared with `npm start`. */
export { startOffline, type Offline } from '../../scripts/local/offline';
