import { resetConfig } from '../../shared/config';
import { ensureSeed } from '../../shared/store/seed';
import { startEmulators, type Emulators } from './emulators';
import { startOffline, type Offline } from './offline';
import { httpApi, type HttpCall } from './sign-up';

export interface E2eStack {
  emulators: Emulators;
  offline: Offline;
  /** JSON calls to the API served by serverless-offline. */
  call: HttpCall;
  stop(): Promise<void>;
}

/**
 * The API over real HTTP for an e2e suite: the emulators, this process pointed at them (the tests also
 * read the store directly), the roles seeded as `npm start` seeds them (registration gives `seller`
 * only when that role exists), and serverless-offline serving the bundled handlers. A failed start
 * stops what had started.
 */
export async function startE2eStack(): Promise<E2eStack> {
  const emulators = await startEmulators();
  try {
    Object.assign(process.env, emulators.env);
    resetConfig();
    await ensureSeed();
    const offline = await startOffline(emulators.env);
    return {
      emulators,
      offline,
      call: httpApi(offline.apiUrl),
      stop: async () => {
        await offline.stop();
        await emulators.stop();
      },
    };
  } catch (e) {
    await emulators.stop();
    throw e;
  }
}
