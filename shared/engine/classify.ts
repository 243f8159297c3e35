/**
 * Row classes of docs/METRICS.md ("Row classes"): which operation (Обоснование для оплаты) feeds which aggregate,
 * and in which direction.
 */

/** Trim, collapse white space, lower-case, ё→е: the comparison form of operation and header text (docs/WB-REPORT.md). */
export function normalizeText(text: string | undefined): string {
  if (text === undefined) return '';
  return text.trim().replace(/\s+/g, ' ').toLowerCase().replace(/ё/g, 'е');
}

export type RowClass = 'realization' | 'compensation' | 'logistics' | 'pickup' | 'acquiring_correction' | 'other';

export interface OperationClass {
  cls: RowClass;
  /**
   * realization / compensation: the direction when Тип документа is empty (+1 or −1).
   * logistics: the sign applied to delivery_rub ("Логистика сторно" is negated).
   * Other classes: 1.
   */
  sign: 1 | -1;
  /** The operation is one docs/WB-REPORT.md lists (or matches a class): an unlisted one is reported when it carries no counted money. */
  known: boolean;
}

/** Realization operations with their direction when Тип документа is empty. */
const REALIZATION: ReadonlyMap<string, 1 | -1> = new Map<string, 1 | -1>([
  ['продажа', 1],
  ['корректная продажа', 1],
  ['сторно возвратов', 1],
  ['коррекция продаж', 1],
  ['возврат', -1],
  ['корректный возврат', -1],
  ['сторно продаж', -1],
  ['коррекция возвратов', -1],
]);

const LOGISTICS: ReadonlyMap<string, 1 | -1> = new Map<string, 1 | -1>([
  ['логистика', 1],
  ['коррекция логистики', 1],
  ['логистика сторно', -1],
]);

const PICKUP = 'возмещение за выдачу и возврат товаров на пвз';
const ACQUIRING_CORRECTION = 'корректировка эквайринга';

/** Operations of the "anything else" class that docs/WB-REPORT.md lists: their money is in the column-driven amounts. */
const KNOWN_OTHER: ReadonlySet<string> = new Set(
  [
    'Возмещение издержек по перевозке/по складским операциям с товаром',
    'Хранение',
    'Пересчет хранения',
    'Корректировка хранения',
    'Платная приемка',
    'Пересчет платной приемки',
    'Корректировка приемки',
    'Обработка товара',
    'Операции на приемке',
    'Штраф',
    'Штрафы',
    'Штрафы и доплаты',
    'Доплаты',
    'Удержание',
    'Удержания',
    'Компенсация скидки по программе лояльности',
    'Стоимость участия в программе лояльности',
    'Сумма удержанная за начисленные баллы программы лояльности',
    'Разовое изменение срока перечисления денежных средств',
  ].map(normalizeText),
);

/** Classify an operation already in normalised form. */
export function classifyNormalized(op: string): OperationClass {
  const r = REALIZATION.get(op);
  if (r !== undefined) return { cls: 'realization', sign: r, known: true };
  const l = LOGISTICS.get(op);
  if (l !== undefined) return { cls: 'logistics', sign: l, known: true };
  if (op === PICKUP) return { cls: 'pickup', sign: 1, known: true };
  if (op === ACQUIRING_CORRECTION) return { cls: 'acquiring_correction', sign: 1, known: true };
  // "Компенсация скидки по программе лояльности" starts with "компенсация" but is loyalty money
  // (cashback_discount column), not a compensation of goods.
  const loyalty = op.includes('лояльност');
  if (
    !loyalty &&
    (op.startsWith('компенсация') ||
      op.startsWith('оплата') ||
      op === 'авансовая оплата за товар без движения' ||
      op === 'добровольная компенсация при возврате' ||
      // Listed in docs/WB-REPORT.md; a compensation of goods although it does not start with "компенсация".
      op === 'частичная компенсация брака')
  ) {
    return { cls: 'compensation', sign: 1, known: true };
  }
  return { cls: 'other', sign: 1, known: KNOWN_OTHER.has(op) };
}

/** Classify an operation cell as written in the file. */
export function classifyOperation(text: string | undefined): OperationClass {
  return classifyNormalized(normalizeText(text));
}

/** Direction from Тип документа: +1 Продажа, −1 Возврат, 0 when empty or anything else (the operation's default applies). */
export function docDirection(text: string | undefined): 1 | -1 | 0 {
  const d = normalizeText(text);
  if (d === 'продажа') return 1;
  if (d === 'возврат') return -1;
  return 0;
}

/** Direction s of a realization or compensation row (docs/METRICS.md): the document type when set, else the operation's default. */
export function rowDirection(op: OperationClass, docType: string | undefined): 1 | -1 {
  const d = docDirection(docType);
  return d === 0 ? op.sign : d;
}

/**
 * A logistics row is a reverse leg when Количество возврата > 0, or when its kind (bonus_type_name) starts with
 * "от клиента" or "возврат"; otherwise forward ("К клиенту при отмене" is forward).
 */
export function isReverseLegKind(bonusTypeNormalized: string): boolean {
  return bonusTypeNormalized.startsWith('от клиента') || bonusTypeNormalized.startsWith('возврат');
}

export type DeductionKind = 'ads' | 'loans' | 'deductions';

/** Where an Удержания amount goes, by bonus_type_name (normalised): ads, loan transfers (not an expense), or other deductions. */
export function deductionKind(bonusTypeNormalized: string): DeductionKind {
  if (bonusTypeNormalized.includes('продвижен')) return 'ads';
  if (
    bonusTypeNormalized.includes('заем') ||
    bonusTypeNormalized.includes('займ') ||
    bonusTypeNormalized.includes('баланс заемщика')
  ) {
    return 'loans';
  }
  return 'deductions';
}
