/**
 * Why a report's processing failed, as a report keeps it (`error`: a stable code and a Russian message
 * for the seller) and as the upload route answers it when the failure comes within its wait.
 */
import { isErrorCode } from '../../contract/errors';
import { ReportError } from '../../engine/errors';
import { AppError, toAppError } from '../../errors';
import type { ReportFailure } from '../domain/lifecycle';

/** Russian texts of the codes a worker can end with (the web app has its own copy per code). */
const MESSAGES: Record<string, string> = {
  missing_headers: 'Файл не похож на детализированный отчёт Wildberries: в нём нет нужных колонок.',
  unsupported_format: 'Этот тип файла не поддерживается. Загрузите отчёт в формате .zip, .xlsx или .xls.',
  file_too_large: 'Файл слишком большой.',
  zip_bomb: 'Архив распаковывается в слишком большой объём и не может быть обработан.',
  too_many_entries: 'В архиве слишком много файлов.',
  too_many_rows: 'В отчёте слишком много строк.',
  cell_too_long: 'В файле есть слишком длинная ячейка: похоже, это не отчёт Wildberries.',
  no_report_in_zip: 'В архиве нет файла отчёта (.xlsx или .xls).',
  empty_report: 'В отчёте нет ни одной строки с данными.',
  corrupt_file: 'Файл повреждён или не читается.',
  source_missing: 'Исходный файл отчёта не найден в хранилище.',
  source_changed: 'Файл изменился после подсчёта строк. Лимиты возвращены; загрузите отчёт ещё раз.',
  report_busy: 'Отчёт меняли одновременно с пересчётом; запустите пересчёт ещё раз.',
  duplicate_report: 'Этот отчёт уже загружен (те же строки в другом файле). Лимиты возвращены.',
  processing_failed: 'Не удалось обработать отчёт из-за сбоя на сервере. Лимиты возвращены; загрузите файл ещё раз.',
};

/** Codes whose message the reader already writes for the seller (Russian, naming the cell). */
const OWN_MESSAGE = new Set(['value_out_of_range']);

/** The failure a thrown value ends a task with: the file's own error code, else `processing_failed`. */
export function failureOf(e: unknown): ReportFailure {
  const err = toAppError(e);
  const code = err.status >= 500 ? 'processing_failed' : err.code;
  if (OWN_MESSAGE.has(code) && e instanceof ReportError) return { code, message: err.message };
  const dup = code === 'duplicate_report' ? err.details?.report_id : undefined;
  if (typeof dup === 'string') return { code, message: MESSAGES[code]!, duplicate_of: dup };
  return { code, message: MESSAGES[code] ?? MESSAGES.processing_failed! };
}

/** HTTP status of a stored failure (the file's errors keep theirs: 413/415/422; a server fault 500). */
export function failureStatus(code: string): number {
  if (code === 'processing_failed') return 500;
  if (code === 'unsupported_format') return 415;
  if (code === 'file_too_large') return 413;
  if (code === 'source_missing' || code === 'report_busy' || code === 'source_changed') return 409;
  if (code === 'duplicate_report') return 409;
  return 422;
}

/** A stored failure as the error the route answers (details carry the report and what was refunded). */
export function failureError(f: ReportFailure, details: Record<string, unknown>): AppError {
  const code = isErrorCode(f.code) ? f.code : 'processing_failed';
  // A duplicate names the report the user already has, as the early 409 does; the failed one beside it.
  const more = f.duplicate_of
    ? { ...details, failed_report_id: details.report_id, report_id: f.duplicate_of }
    : details;
  return new AppError(failureStatus(code), code, f.message, more);
}
