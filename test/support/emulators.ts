/**
 * The emulator harness for tests. The implementation lives in scripts/local/ because `npm start`
 * runs the same pieces; tests import from here.
 */
export { startEmulators, type Emulators } from '../../scripts/local/emulators';
export { readMail, waitForMail, type SentMail } from '../../scripts/local/mail';
