/**
 * One JSON line per event, CloudWatch-friendly. Request and error logs carry the request id. Bodies are
 * never logged: they may hold passwords or tokens. LOG_LEVEL (error|warn|info) is read directly rather
 * than through config.ts because logging must work even when the configuration is what failed; under
 * vitest the default is `error` so test output stays readable.
 */
type Level = 'error' | 'warn' | 'info';
const ORDER: Record<Level, number> = { error: 0, warn: 1, info: 2 };

function threshold(): number {
  const v = process.env.LOG_LEVEL as Level | undefined;
  if (v && v in ORDER) return ORDER[v];
  return process.env.VITEST ? ORDER.error : ORDER.info;
}

export function log(level: Level, msg: string, fields: Record<string, unknown> = {}): void {
  if (ORDER[level] > threshold()) return;
  const line = JSON.stringify({ level, msg, time: new Date().toISOString(), ...fields });
  if (level === 'error') console.error(line);
  else console.log(line);
}

/** The parts of an error worth logging server-side (never sent to clients). */
export function describeError(e: unknown): Record<string, unknown> {
  if (e instanceof Error) return { error_name: e.name, error_message: e.message, stack: e.stack };
  return { error_value: String(e) };
}
