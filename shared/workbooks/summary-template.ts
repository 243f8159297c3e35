/**
 * The legacy accountant's summary template (fixtures/templates/summary-template.xls): a title block, then
 * one header row. It is the kind of sheet an accountant keeps by hand: its wording is its own (", руб.",
 * "Продано"), its order is not ours, and it has columns the product does not compute ("Себестоимость по
 * 1С", "Ответственный", "Комментарий"), which the export leaves empty for people to fill.
 * scripts/make-summary-template.ts writes the file from this layout; the filler (xls-summary.ts) maps
 * the columns by header text, so an accountant may reorder or add columns in the file.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import * as XLSX from '@e965/xlsx';

const SUMMARY_SHEET_NAME = 'Сводная';
const SUMMARY_TEMPLATE_TITLE = 'Сводная ведомость по отчётам о реализации товаров (Wildberries)';

/** The form fields above the table, filled by hand. */
const SUMMARY_TEMPLATE_FORM = ['Организация: ______________________', 'Составил: ______________________'];

/** Signature line below the table; the filler moves it down below the totals. */
export const SUMMARY_TEMPLATE_FOOTER = 'Главный бухгалтер ______________ / ______________ /';

export const SUMMARY_TEMPLATE_HEADERS: readonly string[] = [
  '№ п/п',
  'Номер отчёта',
  'Наименование',
  'Продавец',
  'Код продавца WB',
  'Период с',
  'Период по',
  'Кол-во строк',
  'Продано, шт.',
  'Возвраты, шт.',
  'Цена продавца, руб.',
  'Скидка WB (СПП), руб.',
  'Реализация, руб.',
  'Комиссия WB, руб.',
  'Эквайринг, руб.',
  'Услуги поверенного, руб.',
  'К перечислению, руб.',
  'Компенсации, руб.',
  'Доплаты, руб.',
  'Лояльность, руб.',
  'Логистика, руб.',
  'Обратная логистика, руб.',
  'Возмещение издержек, руб.',
  'Хранение, руб.',
  'Приёмка, руб.',
  'Штрафы, руб.',
  'Удержания, руб.',
  'Реклама, руб.',
  'Займы, руб.',
  'К выплате, руб.',
  'НДС, руб.',
  'УСН, руб.',
  'Себестоимость, руб.',
  'Себестоимость по 1С, руб.',
  'Прибыль, руб.',
  'Маржа, %',
  'Ответственный',
  'Комментарий',
];

/** Row (0-based) of the header in the template this module writes; the filler finds it by text anyway. */
export const SUMMARY_TEMPLATE_HEADER_ROW = 3;

/** Writes the template as a BIFF8 .xls with the given header (the default is the project's template). */
export function buildSummaryTemplate(headers: readonly string[] = SUMMARY_TEMPLATE_HEADERS): Buffer {
  const aoa: string[][] = [
    [SUMMARY_TEMPLATE_TITLE],
    [...SUMMARY_TEMPLATE_FORM],
    [],
    [...headers],
    [],
    [SUMMARY_TEMPLATE_FOOTER],
  ];
  const ws = XLSX.utils.aoa_to_sheet(aoa);
  ws['!merges'] = [{ s: { r: 0, c: 0 }, e: { r: 0, c: Math.min(headers.length - 1, 8) } }];
  ws['!cols'] = headers.map((h) => ({ wch: Math.min(28, Math.max(10, h.length + 2)) }));
  const wb = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(wb, ws, SUMMARY_SHEET_NAME);
  // Fixed properties so the script writes the same bytes every time. No Cyrillic here: SheetJS writes
  // the .xls document properties as 8-bit text, which Excel and `file` show garbled.
  wb.Props = { CreatedDate: new Date('2015-01-12T00:00:00Z') };
  return XLSX.write(wb, { bookType: 'xls', type: 'buffer' }) as Buffer;
}

/** Where the template lives in the repo. */
export const SUMMARY_TEMPLATE_REPO_PATH = 'fixtures/templates/summary-template.xls';

/**
 * Reads the project's template. Looked up from this file's folder (tests, tsx) and from the working
 * directory (a Lambda bundle runs in /var/task, where the packaged fixtures/templates/ must be included).
 */
export function loadSummaryTemplate(): Buffer {
  const candidates = [
    path.resolve(__dirname, '..', '..', SUMMARY_TEMPLATE_REPO_PATH),
    path.resolve(process.cwd(), SUMMARY_TEMPLATE_REPO_PATH),
  ];
  for (const p of candidates) if (existsSync(p)) return readFileSync(p);
  throw new Error(`summary template not found (looked in ${candidates.join(', ')})`);
}
