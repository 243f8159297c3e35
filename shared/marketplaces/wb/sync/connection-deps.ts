/**
 * The composition of the connection routes' use cases (connections.ts): the connection store, the
 * seller store, the token key, WB's Finance API and the clock. Kept apart from the sync's composition
 * (deps.ts) so a route's bundle and error list hold only what the routes run.
 */
import { systemClock } from '../../../deps';
import { deleteObject } from '../../../files/objects';
import { describeError, log } from '../../../log';
import { newReportId } from '../../../store/report-record';
import { ensureSellerByNumber } from '../../../store/sellers.repo';
import { consumeSlot } from '../../../store/throttle.repo';
import * as connections from '../../../store/wb-connections.repo';
import { createFinanceClient } from '../finance/finance-client';
import { getConfig } from '../../../config';
import { kmsClient, kmsKeyWrapper } from '../kms-wrapper';
import { localKeyWrapper, type KeyWrapper } from '../token-crypto';
import type { ConnectionDeps } from './connections';

let wrapper: KeyWrapper | undefined;

/** The key that seals tokens: the stack's KMS key on AWS, the local key (WB_TOKEN_KEY) otherwise. */
export function tokenKeyWrapper(): KeyWrapper {
  if (!wrapper) {
    const c = getConfig();
    if (c.WB_TOKEN_KMS_KEY_ID) wrapper = kmsKeyWrapper(kmsClient(c.AWS_REGION), c.WB_TOKEN_KMS_KEY_ID);
    else if (c.WB_TOKEN_KEY) wrapper = localKeyWrapper(c.WB_TOKEN_KEY);
    else throw new Error('WB tokens cannot be sealed: set WB_TOKEN_KMS_KEY_ID (AWS) or WB_TOKEN_KEY (local)');
  }
  return wrapper;
}

/** WB's Finance API with a seller's token (WB_FINANCE_API_URL: WB, or the local emulator). */
export const finance = (token: string) =>
  createFinanceClient({
    baseUrl: getConfig().WB_FINANCE_API_URL,
    token,
    requestTimeoutMs: Math.round(getConfig().WB_CALL_DEADLINE_SECONDS * 1000),
  });

/** The least time between two calls for one WB account (WB_CALL_INTERVAL_SECONDS), ms. */
export const callIntervalMs = () => Math.round(getConfig().WB_CALL_INTERVAL_SECONDS * 1000);

export const connectionDeps: ConnectionDeps = {
  connections,
  sellers: { ensureSellerByNumber },
  keyWrapper: tokenKeyWrapper,
  finance,
  clock: systemClock,
  ids: { newId: newReportId },
  callIntervalMs,
  pages: { deletePages },
  throttle: { consumeSlot },
  connectAttemptsPerHour: () => getConfig().WB_CONNECT_ATTEMPTS_PER_HOUR,
  retryAfterMaxMs: () => Math.round(getConfig().WB_RETRY_AFTER_MAX_SECONDS * 1000),
};

/** Deletes pages of WB rows; a failure is logged (`WB page delete failed`), never thrown. */
export async function deletePages(keys: readonly string[]): Promise<void> {
  const results = await Promise.allSettled(keys.map((key) => deleteObject(key)));
  results.forEach((r, i) => {
    if (r.status === 'rejected') log('error', 'WB page delete failed', { key: keys[i], ...describeError(r.reason) });
  });
}
