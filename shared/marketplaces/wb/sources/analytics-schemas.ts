/**
 * zod schemas of WB's report tasks on seller-analytics-api (category «Аналитика»; docs/WB-API.md «Paid
 * storage and acceptance per article»), as the spec «Отчёты» (12-reports.yaml) describes them:
 * - create a task: `{data: {taskId}}`;
 * - its status: `{data: {id, status}}`, status new | processing | done | purged | canceled;
 * - download: an array of rows (paid storage: one row per day × warehouse × supply × size; acceptance:
 *   one row per supply × article).
 * Money fields are JSON numbers of roubles in the spec; they are kept as their decimal text so that sums
 * are exact (conversion to kopecks: report-task.ts). A numeric string is accepted too. Fields the spec lists
 * but we do not need may be absent or null; unknown fields are dropped.
 */
import { z } from 'zod';
import { isMoneyText, numberText } from '../money';

export const TASK_STATUSES = ['new', 'processing', 'done', 'purged', 'canceled'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

export const createTaskSchema = z.object({ data: z.object({ taskId: z.string().min(1) }) });
export const taskStatusSchema = z.object({
  data: z.object({ id: z.string().nullish(), status: z.enum(TASK_STATUSES) }),
});

/** A money amount: a JSON number (the spec) or decimal text → decimal text of roubles. */
const moneyText = z.union([z.number(), z.string()]).transform((v, ctx) => {
  if (typeof v === 'number') {
    if (Number.isFinite(v)) return numberText(v);
  } else if (v.trim() === '') return '0';
  else if (isMoneyText(v)) return v.trim();
  ctx.addIssue({ code: 'custom', message: `not a money amount: ${JSON.stringify(v)}` });
  return z.NEVER;
});
const optionalMoney = moneyText.nullish().transform((v) => v ?? '0');
const optionalNumber = z
  .number()
  .nullish()
  .transform((v) => v ?? null);
const optionalString = z
  .string()
  .nullish()
  .transform((v) => v ?? '');
/** A date or date-time; its calendar date (the first ten characters) is what counts. */
const dateText = z.string().regex(/^\d{4}-\d{2}-\d{2}/, 'expected YYYY-MM-DD…');
const safeId = z
  .number()
  .int()
  .refine((n) => Number.isSafeInteger(n), 'not a safe integer');

/** One row of the paid-storage report (ResponsePaidStorage). */
export const paidStorageRowSchema = z.object({
  /** The day the storage was charged for (or recalculated for). */
  date: dateText,
  /** 0 when absent (a row of no article). */
  nmId: safeId.nullish().transform((v) => v ?? 0),
  vendorCode: optionalString,
  /** «Сумма хранения», roubles. */
  warehousePrice: moneyText,
  /** «Скидка программы лояльности», roubles (carried, not subtracted: docs/WB-API.md). */
  loyaltyDiscount: optionalMoney,
  barcodesCount: optionalNumber,
  volume: optionalNumber,
  warehouse: optionalString,
  officeId: optionalNumber,
  giId: optionalNumber,
  chrtId: optionalNumber,
  calcType: optionalString,
  originalDate: optionalString,
  tariffFixDate: optionalString,
  tariffLowerDate: optionalString,
});
export type PaidStorageRow = z.output<typeof paidStorageRowSchema>;
export const paidStorageReportSchema = z.array(paidStorageRowSchema);

/** One row of the paid-acceptance report. */
export const acceptanceRowSchema = z.object({
  /** Units accepted. */
  count: optionalNumber,
  /** The supply's creation date. */
  giCreateDate: optionalString,
  /** The supply («Номер поставки»). */
  incomeId: optionalNumber,
  /** The article (WB spells it nmID here). */
  nmID: safeId,
  /** The day of acceptance: the day the cost is dated. */
  shkCreateDate: dateText,
  subjectName: optionalString,
  /** «Суммарная стоимость приёмки», roubles. */
  total: moneyText,
});
export type AcceptanceRow = z.output<typeof acceptanceRowSchema>;
export const acceptanceReportSchema = z.array(acceptanceRowSchema);
