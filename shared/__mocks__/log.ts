/**
 * The quiet logger of the unit tier: `vi.mock('../log')` (no factory) in a use case's test puts this in
 * place of shared/log.ts, so a test asserts on `log` calls instead of reading JSON lines on stdout.
 */
import { vi } from 'vitest';

export const log = vi.fn();
export const describeError = (e: unknown): Record<string, unknown> => ({ error: String(e) });
