/** The HTTP harness for e2e and browser tests; the implementation is shared with `npm start`. */
export { startOffline, type Offline, type OfflineOptions } from '../../scripts/local/offline';
