/** Header rows of the reader's tests. */

/** The six required headers plus a few optional ones, current spelling. */
export const BASIC_HEADER = [
  '№',
  'Предмет',
  'Код номенклатуры',
  'Артикул поставщика',
  'Тип документа',
  'Обоснование для оплаты',
  'Дата продажи',
  'Кол-во',
  'Вайлдберриз реализовал Товар (Пр)',
  'К перечислению Продавцу за реализованный Товар',
  'Услуги по доставке товара покупателю',
] as const;
