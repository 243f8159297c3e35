/**
 * The error-code catalogue: every stable code the API answers with, its HTTP status and the Russian
 * sentence the web page shows for it. shared/errors.ts builds its errors from these codes (a code not
 * listed here does not compile), the web page takes its messages from here, and the OpenAPI document
 * lists them per route. A new code goes here first.
 *
 * A code has one status, except `source_missing`: 404 when a source file is asked for (GET source),
 * 409 when an action needs it (rebuild). The first status is the usual one.
 */
import { z } from 'zod';

export interface ErrorSpec {
  readonly status: number | readonly number[];
  /** For the user, in Russian; the page may add details (see web/src/api/errors.ts). */
  readonly message: string;
}

export const ERRORS = {
  // 400: the request itself
  validation_error: { status: 400, message: 'Проверьте введённые данные.' },
  invalid_json: { status: 400, message: 'Запрос не удалось прочитать: тело не является JSON.' },
  invalid_multipart: { status: 400, message: 'Файл передан не полностью. Попробуйте загрузить его ещё раз.' },
  invalid_range: {
    status: 400,
    message: 'Проверьте период: нужны две даты, начало не позже конца, не длиннее трёх лет.',
  },
  invalid_cursor: { status: 400, message: 'Ссылка на следующую страницу устарела. Обновите список.' },
  invalid_token: { status: 400, message: 'Ссылка недействительна или устарела. Запросите новую.' },
  invalid_seller_number: { status: 400, message: 'Номер продавца в имени файла не распознан.' },
  file_required: { status: 400, message: 'Выберите файл для загрузки.' },
  invalid_current_password: { status: 400, message: 'Текущий пароль указан неверно.' },
  idempotency_key_mismatch: {
    status: 400,
    message: 'Запрос составлен неверно: ключи повтора в заголовке и в теле различаются.',
  },
  weak_password: { status: 400, message: 'Новый пароль слишком короткий: нужно не меньше 8 символов.' },
  // 401, 402, 403
  unauthorized: { status: 401, message: 'Сессия истекла. Войдите снова.' },
  invalid_credentials: { status: 401, message: 'Неверный email или пароль (или адрес ещё не подтверждён).' },
  insufficient_limits: { status: 402, message: 'Недостаточно лимитов строк для загрузки этого отчёта.' },
  forbidden: { status: 403, message: 'Недостаточно прав для этого действия.' },
  // 404
  wb_connection_not_found: { status: 404, message: 'Подключение WB не найдено: возможно, оно уже удалено.' },
  not_found: { status: 404, message: 'Не найдено: возможно, запись уже удалена.' },
  report_not_found: { status: 404, message: 'Отчёт не найден: возможно, он уже удалён.' },
  item_not_found: { status: 404, message: 'Строка отчёта не найдена: возможно, отчёт пересобран или удалён.' },
  seller_not_found: { status: 404, message: 'Продавец не найден.' },
  article_not_found: {
    status: 404,
    message: 'Артикул не найден в готовых недельных отчётах (или у выбранного продавца).',
  },
  period_cost_not_found: { status: 404, message: 'Расход не найден: возможно, он уже удалён.' },
  purchase_not_found: { status: 404, message: 'Закупка не найдена: возможно, она уже удалена.' },
  own_cost_not_found: { status: 404, message: 'Такой строки своих расходов нет: возможно, она уже удалена.' },
  upload_not_found: {
    status: 404,
    message: 'Загруженный файл не найден: возможно, загрузка не завершилась или устарела. Загрузите файл ещё раз.',
  },
  job_not_found: {
    status: 404,
    message: 'Задача объединения не найдена: возможно, сервер был перезапущен. Запустите объединение ещё раз.',
  },
  source_missing: {
    status: [404, 409],
    message: 'Исходный файл этого отчёта не сохранён, поэтому действие недоступно.',
  },
  // 409
  email_taken: { status: 409, message: 'На этот адрес уже есть учётная запись. Войдите или восстановите пароль.' },
  transaction_conflict: {
    status: 409,
    message: 'Данные изменились одновременно с вашим запросом. Попробуйте ещё раз.',
  },
  report_busy: { status: 409, message: 'Отчёт сейчас изменяется другим запросом. Подождите и попробуйте ещё раз.' },
  report_rebuilt: { status: 409, message: 'Отчёт пересобран, пока вы его правили. Обновите страницу.' },
  product_busy: {
    status: 409,
    message: 'Себестоимость этого артикула сейчас меняется другим запросом. Попробуйте ещё раз.',
  },
  own_costs_busy: {
    status: 409,
    message: 'Свои расходы сейчас меняются другим запросом. Попробуйте ещё раз.',
  },
  report_processing: {
    status: 409,
    message: 'Отчёт ещё обрабатывается. Удалить его можно, когда обработка закончится.',
  },
  password_changed: { status: 409, message: 'Пароль только что изменён другим запросом. Войдите снова.' },
  duplicate_report: { status: 409, message: 'Этот отчёт уже загружен. Повторная загрузка спишет лимиты ещё раз.' },
  source_changed: {
    status: 409,
    message: 'Файл изменился после подсчёта строк. Лимиты возвращены; загрузите отчёт ещё раз.',
  },
  wb_connection_exists: {
    status: 409,
    message: 'Этот кабинет WB уже подключён. Чтобы сменить токен, откройте подключение и вставьте новый токен.',
  },
  wb_connection_blocked: {
    status: 409,
    message: 'Токен этого подключения WB больше не принимает. Вставьте новый токен с категорией «Финансы».',
  },
  // 413, 415
  file_too_large: { status: 413, message: 'Файл слишком большой.' },
  request_too_large: {
    status: 413,
    message: 'Запрос больше 6 МБ: такие файлы загружаются напрямую в хранилище (кнопка загрузки делает это сама).',
  },
  response_too_large: {
    status: 406,
    message: 'Ответ больше 6 МБ: нужен клиент, принимающий сжатие gzip (Accept-Encoding: gzip).',
  },
  unsupported_format: {
    status: 415,
    message: 'Этот тип файла не поддерживается. Загрузите отчёт в формате .zip, .xlsx или .xls.',
  },
  not_a_spreadsheet: {
    status: 415,
    message:
      'Файл не является таблицей: внутри не Excel (.xlsx/.xls) и не zip-архив, хотя расширение похоже. Скачайте детализированный отчёт из личного кабинета WB ещё раз и загрузите его без изменений.',
  },
  // 422: a file that cannot be read (the reader's codes, shared/engine/errors.ts)
  zip_bomb: { status: 422, message: 'Архив распаковывается в слишком большой объём и не может быть обработан.' },
  too_many_entries: { status: 422, message: 'В архиве слишком много файлов.' },
  too_many_rows: { status: 422, message: 'В файле слишком много строк.' },
  cell_too_long: { status: 422, message: 'В файле есть слишком длинная ячейка: похоже, это не отчёт Wildberries.' },
  no_report_in_zip: { status: 422, message: 'В архиве нет файла отчёта (.xlsx или .xls).' },
  missing_headers: {
    status: 422,
    message: 'Файл не похож на детализированный отчёт Wildberries: в нём нет нужных колонок.',
  },
  empty_report: { status: 422, message: 'В отчёте нет ни одной строки с данными.' },
  corrupt_file: { status: 422, message: 'Файл повреждён или не читается.' },
  // 422: the catalog import file
  missing_columns: { status: 422, message: 'В файле нет нужных столбцов: «Артикул» и «Себестоимость».' },
  empty_file: { status: 422, message: 'Файл пуст.' },
  import_too_large: {
    status: 422,
    message:
      'Таблица слишком большая для импорта себестоимости: оставьте в ней только столбцы артикула и себестоимости.',
  },
  // 422: period costs and their import (P&L)
  invalid_period_cost: {
    status: 422,
    message:
      'Проверьте расход: ежемесячному нужен месяц начала (конец не раньше начала), разовому — дата; сумма больше нуля, не больше двух знаков после запятой.',
  },
  too_many_period_costs: { status: 422, message: 'Слишком много расходов периода: не больше 1000. Удалите ненужные.' },
  period_cost_columns_missing: {
    status: 422,
    message: 'В файле нет нужных столбцов: «Название», «Сумма» и «Месяц» (или «Дата»).',
  },
  // 422: purchases of goods (cash flow)
  invalid_purchase: {
    status: 422,
    message:
      'Проверьте закупку: дата ГГГГ-ММ-ДД между 2019 и 2100 годом, сумма больше нуля и не больше 10 млрд ₽, артикул из каталога, количество — целое число.',
  },
  too_many_purchases: { status: 422, message: 'Слишком много закупок: не больше 5000. Удалите ненужные.' },
  purchase_columns_missing: {
    status: 422,
    message:
      'В файле нет нужных столбцов: «Дата» и «Сумма» (и при необходимости «Артикул», «Количество», «Комментарий»).',
  },
  // 422: notifications
  invalid_notification_settings: {
    status: 422,
    message:
      'Проверьте настройки уведомлений: тихие часы в формате ЧЧ:ММ, порог падения прибыли — целое число от 1 до 100 %.',
  },
  // 422: own per-unit costs
  own_cost_columns_missing: {
    status: 422,
    message:
      'В файле нет нужных столбцов: «Статья» (название расхода) и «Сумма за шт» (и при необходимости «Артикул», «Действует с»).',
  },
  too_many_own_costs: {
    status: 422,
    message:
      'Слишком много строк своих расходов: оставьте общие строки для всех артикулов и отдельные только где сумма другая.',
  },
  // 422: settings and retries
  vat_rate_not_in_force: {
    status: 422,
    message:
      'Такой ставки НДС не было на дату начала периода: 5 % и 7 % — с 01.01.2025, 22 % — с 01.01.2026, 20 % — до 01.01.2026.',
  },
  idempotency_key_reused: {
    status: 422,
    message: 'Этот запрос уже выполнялся с другими данными. Обновите страницу и повторите действие.',
  },
  // 422: unit economics
  cost_price_missing: {
    status: 422,
    message: 'У артикула нет себестоимости: укажите её в каталоге, и юнит-экономика посчитается.',
  },
  invalid_unit_input: {
    status: 422,
    message: 'Проверьте значение: недель — от 1 до 52, цена больше нуля, маржа меньше 100 %.',
  },
  // 422: manual values
  field_not_correctable: { status: 422, message: 'Это поле нельзя скорректировать вручную.' },
  invalid_manual_value: { status: 422, message: 'Такое значение нельзя ввести в это поле.' },
  value_out_of_range: { status: 422, message: 'Значение вне допустимого диапазона.' },
  // 422: combining
  overlapping_reports: {
    status: 422,
    message:
      'В выборке одни и те же строки учтены дважды (копия отчёта, отчёт внутри другого или сводный отчёт вместе со своим источником).',
  },
  not_combined: { status: 422, message: 'Пересобрать из источников можно только сводный отчёт.' },
  unprocessable: { status: 422, message: 'Запрос не может быть выполнен с такими данными.' },
  // 422: WB tokens
  wb_token_invalid: {
    status: 422,
    message: 'Токен не принят WB: проверьте, что он скопирован целиком, или создайте новый в разделе «Доступ к API».',
  },
  wb_token_no_finance: {
    status: 422,
    message: 'У токена нет доступа к категории «Финансы». Создайте токен с отмеченной категорией «Финансы».',
  },
  wb_token_forbidden: {
    status: 422,
    message:
      'Сервис WB не даёт этому токену доступ к финансовым отчётам. Нужен персональный или сервисный токен с категорией «Финансы»: создайте его в разделе «Доступ к API».',
  },
  wb_token_other_account: {
    status: 422,
    message:
      'Этот токен выпущен для другого кабинета WB. Вставьте токен того кабинета, который подключён, или подключите новый кабинет отдельно.',
  },
  wb_token_expired: {
    status: 422,
    message: 'Срок действия токена истёк. Создайте новый токен в разделе «Доступ к API» личного кабинета WB.',
  },
  // 405: a function serving several routes got a method its path does not take (shared/http/route.ts)
  method_not_allowed: { status: 405, message: 'Запрос составлен неверно: этот адрес не принимает такой метод.' },
  // 429, 500
  rate_limited: { status: 429, message: 'Слишком много запросов. Подождите немного и попробуйте снова.' },
  too_many_attempts: { status: 429, message: 'Слишком много попыток. Подождите немного и попробуйте снова.' },
  processing_failed: {
    status: 500,
    message: 'Не удалось обработать отчёт из-за сбоя на сервере. Лимиты возвращены; загрузите файл ещё раз.',
  },
  wb_unavailable: {
    status: 503,
    message:
      'Сервис WB сейчас не отвечает или просит подождать (не больше одного запроса в минуту). Попробуйте через минуту.',
  },
  telegram_not_configured: {
    status: 503,
    message: 'Уведомления в Telegram на этом сервере не настроены. Обратитесь к администратору.',
  },
  internal_error: { status: 500, message: 'На сервере произошла ошибка. Попробуйте ещё раз чуть позже.' },
  // 503: a store did not answer in time, or the request ran out of time before it charged or started anything
  try_again: {
    status: 503,
    message: 'Сервер не успел ответить вовремя. Попробуйте ещё раз через минуту: повтор не спишет лимиты дважды.',
  },
} as const satisfies Record<string, ErrorSpec>;

export type ErrorCode = keyof typeof ERRORS;

type StatusesOf<C extends ErrorCode> = (typeof ERRORS)[C]['status'] extends infer S
  ? S extends readonly number[]
    ? S[number]
    : S
  : never;

/** The codes that may be answered with HTTP status S (type level: `conflict('x')` needs x to allow 409). */
export type CodeWithStatus<S extends number> = { [C in ErrorCode]: S extends StatusesOf<C> ? C : never }[ErrorCode];

export const ERROR_CODES = Object.keys(ERRORS) as ErrorCode[];

export function isErrorCode(code: string): code is ErrorCode {
  return Object.prototype.hasOwnProperty.call(ERRORS, code);
}

/** Every status a code may have, the usual one first. */
export function statusesOf(code: ErrorCode): readonly number[] {
  const s: number | readonly number[] = ERRORS[code].status;
  return typeof s === 'number' ? [s] : s;
}

/** The usual status of a code. */
export function statusOf(code: ErrorCode): number {
  return statusesOf(code)[0]!;
}

/** `{"error": {"code", "message", "details"}}`: every non-2xx JSON answer of the API. */
export const errorBodySchema = z
  .object({
    error: z.object({
      code: z.string().describe('A stable code of the catalogue'),
      message: z.string().describe('For developers, usually English; the page shows its own Russian text'),
      details: z.record(z.string(), z.unknown()),
    }),
  })
  .meta({ id: 'Error' });
