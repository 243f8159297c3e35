import type { TestProject } from 'vitest/node';
import { startEmulators } from './emulators';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The emulators' environment (also copied into process.env of every test file). */
    emulatorEnv: Record<string, string>;
  }
}

/**
 * Integration suites: DynamoDB Local, s3rver and the SES emulator start once for the whole run.
 * Their settings go into process.env here, which the test workers inherit (they are started after
 * global setup), and are also provided as `inject('emulatorEnv')` for code that wants them explicitly.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const emulators = await startEmulators();
  Object.assign(process.env, emulators.env);
  project.provide('emulatorEnv', emulators.env);
  return async () => {
    await emulators.stop();
  };
}
