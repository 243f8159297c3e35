/**
 * What a page of WB's detailed rows says about the costs a report needs from WB's other APIs: a mark per
 * cost kind whose source is asked for only when the report's rows carry that kind (sources/costs.ts
 * `needsRows`). The Finance client marks each page as it reads it (finance-client.ts), the sync keeps the
 * marks with the page and queues the report's cost jobs by them (shared/marketplaces/wb/sync/costs-step.ts).
 *
 * - `acquiring_billed`: a row paid «Комиссия за организацию платежа с НДС» (`paymentProcessing`): WB bills
 *   its acquiring separately, in its acquiring report (docs/METRICS.md «Row money»).
 */

/** The marks a row can give (cost kinds of sources/cost-kinds.ts). */
export type RowMark = 'acquiring_billed';

const BILLED_APART = 'организацию платежа';
// The Finance client checks rows on their one-byte text (json-rows.ts `latin1`): the UTF-8 bytes read as latin1.
const BILLED_APART_LATIN1 = Buffer.from(BILLED_APART, 'utf8').toString('latin1');

/** The marks of one row (its fields as sent: the text read as UTF-8 or as latin1 bytes). */
export function rowMarks(row: Readonly<Record<string, unknown>>): RowMark[] {
  const p = row.paymentProcessing;
  if (typeof p !== 'string' || p === '') return [];
  const lower = p.toLowerCase();
  return lower.includes(BILLED_APART) || p.includes(BILLED_APART_LATIN1) ? ['acquiring_billed'] : [];
}
