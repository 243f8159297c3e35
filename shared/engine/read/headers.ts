import { ReportError } from '../errors';
import { KEY_INDEX, REQUIRED_KEYS, type MetricKey } from '../row-sink';

/**
 * Header text → canonical key (WB statistics API field names), docs/WB-REPORT.md "Columns".
 * The keys are in the order of the 2026 sheet, and the first spelling of each key is its current title
 * (used in messages; the fixture generator lays out its 2026 files with them, see CURRENT_LAYOUT); the rest
 * are older or English-locale spellings. Only METRIC_KEYS reach the sink, but the whole table is mapped so a
 * known column is never mistaken for an unknown one.
 */
const SPELLINGS: ReadonlyArray<readonly [key: string, title: string, ...others: string[]]> = [
  ['rrd_no', '№'],
  ['gi_id', 'Номер поставки'],
  ['subject_name', 'Предмет'],
  ['nm_id', 'Код номенклатуры'],
  ['brand_name', 'Бренд'],
  ['sa_name', 'Артикул поставщика', "Supplier's Article"],
  ['title', 'Название'],
  ['ts_name', 'Размер'],
  ['barcode', 'Баркод'],
  ['doc_type_name', 'Тип документа', 'Document Type'],
  ['supplier_oper_name', 'Обоснование для оплаты', 'Reason for Payment'],
  ['order_dt', 'Дата заказа покупателем'],
  ['sale_dt', 'Дата продажи'],
  ['quantity', 'Кол-во', 'Quantity'],
  ['retail_price', 'Цена розничная'],
  ['retail_amount', 'Вайлдберриз реализовал Товар (Пр)', 'Wildberries Realized Goods (Pr)'],
  ['sale_percent', 'Согласованный продуктовый дисконт, %'],
  ['supplier_promo', 'Промокод, %'],
  ['product_discount_for_report', 'Итоговая согласованная скидка, %'],
  ['retail_price_withdisc_rub', 'Цена розничная с учетом согласованной скидки'],
  ['sup_rating_prc_up', 'Размер снижения кВВ из-за рейтинга, %'],
  ['is_kgvp_v2', 'Размер изменения кВВ из-за акции, %'],
  [
    'ppvz_spp_prc',
    'Платформенные скидки, %',
    'Скидка постоянного Покупателя (СПП), %',
    'Скидка постоянного Покупателя (СПП)',
    'СПП',
  ],
  ['commission_percent', 'Размер кВВ, %'],
  ['ppvz_kvw_prc_base', 'Размер кВВ без НДС, % Базовый'],
  ['ppvz_kvw_prc', 'Итоговый кВВ без НДС, %'],
  ['ppvz_sales_commission', 'Вознаграждение с продаж до вычета услуг поверенного, без НДС'],
  ['ppvz_reward', 'Возмещение за выдачу и возврат товаров на ПВЗ', 'Возмещение Расходов услуг поверенного'],
  [
    'acquiring_fee',
    'Компенсация платёжных услуг/Комиссия за интеграцию платёжных сервисов',
    'Эквайринг/Комиссии за организацию платежей',
    'Возмещение расходов по эквайрингу',
  ],
  [
    'acquiring_percent',
    'Размер компенсации платёжных услуг/Комиссии за интеграцию платёжных сервисов, %',
    'Размер комиссии за эквайринг/Комиссии за организацию платежей, %',
  ],
  [
    'payment_processing',
    'Тип платежа: компенсация платёжных услуг/Комиссия за интеграцию платёжных сервисов',
    'Тип платежа за Эквайринг/Комиссии за организацию платежей',
  ],
  ['ppvz_vw', 'Вознаграждение Вайлдберриз (ВВ), без НДС'],
  ['ppvz_vw_nds', 'НДС с Вознаграждения Вайлдберриз'],
  [
    'ppvz_for_pay',
    'К перечислению Продавцу за реализованный Товар',
    'К перечислению за товар',
    'Amount to Transfer to the Seller for the Realized Goods',
  ],
  ['delivery_amount', 'Количество доставок'],
  ['return_amount', 'Количество возврата'],
  ['delivery_rub', 'Услуги по доставке товара покупателю'],
  ['fix_tariff_date_from', 'Дата начала действия фиксации'],
  ['fix_tariff_date_to', 'Дата конца действия фиксации'],
  ['srv_dbs', 'Признак услуги платной доставки'],
  ['penalty', 'Общая сумма штрафов', 'Штрафы'],
  ['additional_payment', 'Корректировка Вознаграждения Вайлдберриз (ВВ)', 'Доплаты'],
  [
    'bonus_type_name',
    'Виды логистики, штрафов и корректировок ВВ',
    'Обоснование штрафов и доплат',
    'Виды логистики, штрафов и доплат',
    'Виды доставок, штрафов и корректировок ВВ',
  ],
  ['sticker_id', 'Стикер МП'],
  ['acquiring_bank', 'Наименование банка-эквайера', 'Наименование банка эквайринга'],
  ['ppvz_office_id', 'Номер офиса'],
  ['ppvz_office_name', 'Наименование офиса доставки'],
  ['ppvz_inn', 'ИНН партнера'],
  ['ppvz_supplier_name', 'Партнер'],
  ['office_name', 'Склад'],
  ['site_country', 'Страна'],
  ['gi_box_type_name', 'Тип коробов'],
  ['declaration_number', 'Номер таможенной декларации'],
  ['assembly_id', 'Номер сборочного задания'],
  ['kiz', 'Код маркировки'],
  ['shk_id', 'ШК'],
  ['srid', 'Srid'],
  ['rebill_logistic_cost', 'Возмещение издержек по перевозке/по складским операциям с товаром'],
  ['rebill_logistic_org', 'Организатор перевозки'],
  ['storage_fee', 'Хранение'],
  ['deduction', 'Удержания'],
  ['acceptance', 'Операции на приемке', 'Платная приемка', 'Операции при приёмке'],
  ['dlv_prc', 'Фиксированный коэффициент склада по поставке'],
  ['is_legal_entity', 'Признак продажи юридическому лицу'],
  ['trbx_id', 'Номер короба для обработки товара', 'Номер короба для платной приемки'],
  ['installment_cofinancing_amount', 'Скидка по программе софинансирования'],
  ['wibes_wb_discount_percent', 'Скидка Wibes, %'],
  ['cashback_discount', 'Компенсация скидки по программе лояльности'],
  ['cashback_commission_change', 'Стоимость участия в программе лояльности'],
  [
    'cashback_amount',
    'Сумма баллов, удержанных по программе лояльности',
    'Сумма удержанная за начисленные баллы программы лояльности',
  ],
  ['order_uid', 'Id корзины заказа'],
  ['payment_schedule', 'Разовое изменение срока перечисления денежных средств'],
  ['seller_promo_id', 'Id собственной акции продавца с дополнительной скидкой'],
  ['seller_promo_discount', 'Размер дополнительной скидки по собственной акции продавца, %'],
  ['delivery_method', 'Способы продажи и тип товара'],
  ['loyalty_id', 'Уникальный идентификатор скидки лояльности от продавца'],
  ['loyalty_discount', 'Размер скидки лояльности от продавца, %'],
  ['uuid_promocode', 'Id промокода'],
  ['sale_price_promocode_discount_prc', 'Скидка за промокод, %'],
  ['article_substitution', 'Id подменного артикула'],
  ['sale_price_affiliated_discount_prc', 'Скидка по подменному артикулу, %'],
  ['sale_price_wholesale_discount_prc', 'Оптовая скидка для бизнеса, %'],
];

/** Trim, collapse white space (incl. no-break spaces), lower-case, fold ё→е (docs/WB-REPORT.md, Traps). */
export function normalizeHeader(text: string): string {
  return text.replace(/\s+/g, ' ').trim().toLowerCase().replace(/ё/g, 'е');
}

/** The matching form: normalised, and indifferent to "%" and the comma before it being present or not. */
function matchForm(text: string): string {
  return normalizeHeader(text.replace(/[%,]/g, ' '));
}

const BY_MATCH_FORM: ReadonlyMap<string, string> = (() => {
  const map = new Map<string, string>();
  for (const [key, ...titles] of SPELLINGS) {
    for (const title of titles) {
      const form = matchForm(title);
      const existing = map.get(form);
      if (existing !== undefined && existing !== key)
        throw new Error(`header "${title}" maps to ${existing} and ${key}`);
      map.set(form, key);
    }
  }
  return map;
})();

/** Canonical key of every column documented in docs/WB-REPORT.md (not only the metric ones). */
export const KNOWN_KEYS: readonly string[] = SPELLINGS.map(([key]) => key);

/** The 2026 sheet: every documented column in its order, under its current title (fixtures/wb-headers-2026.json checks it). */
export const CURRENT_LAYOUT: ReadonlyArray<{ readonly key: string; readonly title: string }> = SPELLINGS.map(
  ([key, title]) => ({ key, title }),
);

/** The English-locale title of a key (an older spelling in ASCII letters), or undefined when none is documented. */
export function englishTitleOf(key: string): string | undefined {
  return SPELLINGS.find(([k]) => k === key)
    ?.slice(2)
    .find((t) => /^[\x20-\x7e]+$/.test(t));
}

/** The current Russian title of a key, for messages. */
export function titleOf(key: string): string {
  return SPELLINGS.find(([k]) => k === key)?.[1] ?? key;
}

/** Canonical key of a header cell's text, or null for a column docs/WB-REPORT.md does not list. */
export function headerKey(text: string): string | null {
  return BY_MATCH_FORM.get(matchForm(text)) ?? null;
}

export interface ColumnMap {
  /** Column index (0-based) → index into METRIC_KEYS, -1 for columns the metrics do not read. */
  readonly toMetric: Int16Array;
  readonly present: ReadonlySet<MetricKey>;
  /** Header texts of columns docs/WB-REPORT.md does not list (ignored). */
  readonly unknown: readonly string[];
}

/**
 * Maps a header row (column index → text) to metric keys by text, never by position.
 * The first column of a key wins when a file repeats one. Throws missing_headers naming the missing
 * required columns by their Russian titles.
 */
export function mapHeaderRow(headers: ReadonlyMap<number, string>): ColumnMap {
  let maxCol = -1;
  for (const col of headers.keys()) if (col > maxCol) maxCol = col;
  const toMetric = new Int16Array(maxCol + 1).fill(-1);
  const present = new Set<MetricKey>();
  const unknown: string[] = [];
  const cols = [...headers.keys()].sort((a, b) => a - b);
  for (const col of cols) {
    const text = headers.get(col) ?? '';
    if (text.trim() === '') continue;
    const key = headerKey(text);
    if (key === null) {
      unknown.push(text);
      continue;
    }
    if (key in KEY_INDEX && !present.has(key as MetricKey)) {
      present.add(key as MetricKey);
      toMetric[col] = KEY_INDEX[key as MetricKey];
    }
  }
  const missing = REQUIRED_KEYS.filter((k) => !present.has(k));
  if (missing.length > 0) {
    const titles = missing.map(titleOf);
    throw new ReportError(
      'missing_headers',
      `Not a Wildberries detailed report: missing column${titles.length > 1 ? 's' : ''} ${titles.map((t) => `«${t}»`).join(', ')}.`,
      { missing: titles, keys: missing },
    );
  }
  return { toMetric, present, unknown };
}
