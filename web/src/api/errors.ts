// One error type for everything the page shows: a Russian message built from the API's error code,
// never the raw code, a stack or a server's English text on its own. The messages are the contract's
// error catalogue (shared/contract/errors.ts).
import { ERRORS } from './contract';

export interface ApiErrorBody {
  code?: string;
  message?: string;
  details?: Record<string, unknown>;
}

export class ApiError extends Error {
  constructor(
    /** HTTP status; 0 when the request never got an answer. */
    readonly status: number,
    readonly code: string,
    /** Russian text for the user. */
    message: string,
    readonly details: Record<string, unknown> = {},
    /** The API's own message, shown as a detail where it helps (e.g. which columns a file lacks). */
    readonly serverMessage?: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** Codes of the page itself (no answer, storage refused the PUT, an answer not in the contract). */
export const CLIENT_MESSAGES = {
  network_error: 'Нет связи с сервером. Проверьте подключение к интернету и попробуйте ещё раз.',
  upload_failed: 'Не удалось передать файл в хранилище. Попробуйте ещё раз.',
  bad_response: 'Сервер ответил неожиданно. Попробуйте ещё раз.',
} as const;

/** Every code the API answers with has its Russian sentence in the contract's catalogue. */
const MESSAGES: Record<string, string> = {
  ...Object.fromEntries(Object.entries(ERRORS).map(([code, spec]) => [code, spec.message])),
  ...CLIENT_MESSAGES,
};

/** Fallback by status when the code is unknown to this page. */
const BY_STATUS: Record<number, string> = {
  400: MESSAGES.validation_error!,
  401: MESSAGES.unauthorized!,
  402: MESSAGES.insufficient_limits!,
  403: MESSAGES.forbidden!,
  404: MESSAGES.not_found!,
  409: 'Действие невозможно в текущем состоянии.',
  413: MESSAGES.file_too_large!,
  415: MESSAGES.unsupported_format!,
  422: 'Файл не удалось прочитать как детализированный отчёт Wildberries.',
  429: MESSAGES.rate_limited!,
};

const rowsWord = (n: number): string => {
  const mod10 = n % 10;
  const mod100 = n % 100;
  if (mod10 === 1 && mod100 !== 11) return 'строка';
  if (mod10 >= 2 && mod10 <= 4 && (mod100 < 12 || mod100 > 14)) return 'строки';
  return 'строк';
};

export function pluralRows(n: number): string {
  return `${n.toLocaleString('ru-RU')} ${rowsWord(Math.abs(n))}`;
}

/** The Russian message for an API error code (with details where they make it clearer). */
export function messageFor(status: number, code: string, details: Record<string, unknown> = {}): string {
  if (code === 'insufficient_limits' && typeof details.rows === 'number' && typeof details.limits === 'number') {
    return `Недостаточно лимитов: в отчёте ${pluralRows(details.rows)}, а у вас осталось ${pluralRows(details.limits)}.`;
  }
  if (code === 'file_too_large' && typeof details.max_bytes === 'number') {
    return `Файл слишком большой: допустимо не больше ${Math.floor(details.max_bytes / 1024 / 1024)} МБ.`;
  }
  if (code === 'missing_headers' && Array.isArray(details.missing) && details.missing.length > 0) {
    return `${MESSAGES.missing_headers} Не найдены: ${details.missing
      .slice(0, 8)
      .map((t) => `«${String(t)}»`)
      .join(', ')}.`;
  }
  if (code === 'too_many_attempts' && typeof details.retry_after_seconds === 'number') {
    const s = details.retry_after_seconds;
    const wait = s < 60 ? `${s} с` : `${Math.ceil(s / 60)} мин`;
    return `Слишком много попыток. Попробуйте снова через ${wait}.`;
  }
  if (code === 'source_missing' && Array.isArray(details.report_ids)) {
    return 'Один из исходных отчётов удалён, поэтому сводный отчёт нельзя пересобрать.';
  }
  if (code === 'duplicate_report' && typeof details.title === 'string') {
    return `Этот отчёт уже загружен: «${details.title}». Повторная загрузка спишет лимиты ещё раз.`;
  }
  if (code === 'overlapping_reports' && Array.isArray(details.titles) && details.titles.length === 2) {
    const [a, b] = details.titles.map((t) => `«${String(t)}»`);
    if (details.reason === 'same_report')
      return `Отчёты ${a} и ${b} — один и тот же отчёт: выберите только один из них.`;
    if (details.reason === 'shared_rows')
      return `Отчёты ${a} и ${b} содержат одни и те же строки (один отчёт внутри другого): выберите только один из них.`;
    return `Отчёты ${a} и ${b} пересекаются (сводный отчёт и его источник): выберите только один из них.`;
  }
  if (MESSAGES[code]) return MESSAGES[code];
  if (BY_STATUS[status]) return BY_STATUS[status];
  if (status >= 500) return MESSAGES.internal_error!;
  return 'Что-то пошло не так. Попробуйте ещё раз.';
}

/** Codes whose server text describes the file itself and is worth showing beside the Russian message. */
const FILE_CODES = new Set([
  'missing_headers',
  'empty_report',
  'corrupt_file',
  'no_report_in_zip',
  'cell_too_long',
  'too_many_rows',
  'too_many_entries',
  'zip_bomb',
  'import_too_large',
]);

/** The API's texts are written for developers and may be English; only Russian ones reach the page. */
function isMostlyRussian(text: string | undefined): text is string {
  if (!text) return false;
  const cyrillic = (text.match(/[а-яё]/gi) ?? []).length;
  const latin = (text.match(/[a-z]/gi) ?? []).length;
  return cyrillic > 0 && cyrillic >= latin;
}

export function apiErrorFrom(status: number, body: ApiErrorBody | undefined): ApiError {
  const code = body?.code || (status >= 500 ? 'internal_error' : `http_${status}`);
  const details = body?.details && typeof body.details === 'object' ? body.details : {};
  const missingListed = code === 'missing_headers' && Array.isArray(details.missing) && details.missing.length > 0;
  const server = FILE_CODES.has(code) && !missingListed && isMostlyRussian(body?.message) ? body?.message : undefined;
  return new ApiError(status, code, messageFor(status, code, details), details, server);
}

export function networkError(): ApiError {
  return new ApiError(0, 'network_error', MESSAGES.network_error!);
}

/** Any thrown value → a Russian sentence for the page. */
export function errorText(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  return 'Что-то пошло не так. Попробуйте ещё раз.';
}
