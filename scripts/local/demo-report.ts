/**
 * HOOK for the reports issue: give the demo account a sample report on the stack's first start.
 *
 * scripts/local/stack.ts calls this once per start, after the demo user exists, with the process
 * environment already pointing at the local table and bucket (shared/config.ts reads it). It must be
 * idempotent (look for the user's reports first) and should upload one of fixtures/ through the same
 * shared logic the upload route uses, so the demo shows real numbers.
 *
 * Until the upload logic exists there is nothing to seed: it reports that and stores nothing.
 */
export interface DemoReportResult {
  seeded: boolean;
  /** Printed by the launcher. */
  message: string;
}

export async function seedDemoReport(_input: { userId: string; userCreated: boolean }): Promise<DemoReportResult> {
  return { seeded: false, message: 'no sample report yet (scripts/local/demo-report.ts is the hook for it)' };
}
