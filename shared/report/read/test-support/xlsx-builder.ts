/**
 * Hand-written OOXML for tests: WB-style sheets (Go excelize: inline strings, no sharedStrings.xml,
 * <dimension ref="A1">, data descriptors) and Excel-style ones (shared strings stored after the sheet).
 */
import { writeZip, type ZipInput } from './zip-writer';

export type CellInput = string | number | null | undefined;

export interface SheetOptions {
  /** How text cells are written. Default 'str' (excelize). */
  strings?: 'str' | 'inline' | 'shared';
  /** Namespace prefix on every element, e.g. 'x:'. */
  prefix?: string;
  /** Leave out r= on cells (readers take the next column). */
  omitRefs?: boolean;
}

export function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

export function columnName(index: number): string {
  let n = index + 1;
  let s = '';
  while (n > 0) {
    const m = (n - 1) % 26;
    s = String.fromCharCode(65 + m) + s;
    n = Math.floor((n - 1) / 26);
  }
  return s;
}

/** Sheet XML (and the shared strings it refers to, for strings: 'shared'). */
export function sheetXml(
  rows: readonly (readonly CellInput[])[],
  options: SheetOptions = {},
): { sheet: string; sst: string | null } {
  const p = options.prefix ?? '';
  const strings: string[] = [];
  const index = new Map<string, number>();
  const out: string[] = [];
  out.push(
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<${p}worksheet xmlns${p ? `:${p.slice(0, -1)}` : ''}="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">`,
    `<${p}dimension ref="A1"/><${p}sheetData>`,
  );
  rows.forEach((row, r) => {
    out.push(`<${p}row r="${r + 1}">`);
    row.forEach((cell, c) => {
      const ref = options.omitRefs ? '' : ` r="${columnName(c)}${r + 1}"`;
      if (cell === null || cell === undefined) return;
      if (typeof cell === 'number') {
        out.push(`<${p}c${ref}><${p}v>${cell}</${p}v></${p}c>`);
      } else if (options.strings === 'inline') {
        out.push(
          `<${p}c${ref} t="inlineStr"><${p}is><${p}t xml:space="preserve">${escapeXml(cell)}</${p}t></${p}is></${p}c>`,
        );
      } else if (options.strings === 'shared') {
        let i = index.get(cell);
        if (i === undefined) {
          i = strings.length;
          strings.push(cell);
          index.set(cell, i);
        }
        out.push(`<${p}c${ref} t="s"><${p}v>${i}</${p}v></${p}c>`);
      } else {
        out.push(`<${p}c${ref} t="str"><${p}v>${escapeXml(cell)}</${p}v></${p}c>`);
      }
    });
    out.push(`</${p}row>`);
  });
  out.push(
    `</${p}sheetData><${p}pageMargins left="0.7" right="0.7" top="0.75" bottom="0.75" header="0.3" footer="0.3"/></${p}worksheet>`,
  );
  const sst =
    options.strings === 'shared'
      ? `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<${p}sst xmlns${p ? `:${p.slice(0, -1)}` : ''}="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="${strings.length}" uniqueCount="${strings.length}">` +
        strings.map((s) => `<${p}si><${p}t xml:space="preserve">${escapeXml(s)}</${p}t></${p}si>`).join('') +
        `</${p}sst>`
      : null;
  return { sheet: out.join(''), sst };
}

export interface PackageOptions {
  sheet: string;
  sharedStrings?: string | null;
  /** Where the sheet lives (relationship target is written to match). */
  sheetPath?: string;
  dataDescriptors?: boolean;
  /** Excel stores sharedStrings.xml after the sheet; WB has none. Default true when present. */
  sharedStringsLast?: boolean;
  /** Leave out the workbook's relationships (readers fall back to xl/worksheets/sheet1.xml). */
  noRels?: boolean;
}

export function xlsxPackage(options: PackageOptions): Buffer {
  const sheetPath = options.sheetPath ?? 'xl/worksheets/sheet1.xml';
  const files: ZipInput[] = [
    {
      name: '[Content_Types].xml',
      data: '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/></Types>',
    },
    {
      name: '_rels/.rels',
      data: '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>',
    },
  ];
  files.push({
    name: 'xl/workbook.xml',
    data: '<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Sheet1" sheetId="1" r:id="rId7"/><sheet name="Other" sheetId="2" r:id="rId8"/></sheets></workbook>',
  });
  if (!options.noRels) {
    files.push(
      {
        name: 'xl/_rels/workbook.xml.rels',
        data:
          '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
          '<Relationship Id="rId8" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/other.xml"/>' +
          `<Relationship Id="rId7" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="/${sheetPath}"/>` +
          (options.sharedStrings
            ? '<Relationship Id="rId9" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml"/>'
            : '') +
          '</Relationships>',
      },
      // A second sheet that must not be read (workbook order decides).
      { name: 'xl/worksheets/other.xml', data: sheetXml([['Other sheet']]).sheet },
    );
  }
  const sheet: ZipInput = { name: sheetPath, data: options.sheet };
  const sst: ZipInput | null = options.sharedStrings
    ? { name: 'xl/sharedStrings.xml', data: options.sharedStrings }
    : null;
  if (sst && options.sharedStringsLast === false) files.push(sst, sheet);
  else files.push(sheet, ...(sst ? [sst] : []));
  return writeZip(files, { dataDescriptors: options.dataDescriptors });
}

/** A WB-style .xlsx (excelize) from rows. */
export function wbXlsx(rows: readonly (readonly CellInput[])[], options: SheetOptions = {}): Buffer {
  const { sheet, sst } = sheetXml(rows, options);
  return xlsxPackage({ sheet, sharedStrings: sst, dataDescriptors: true });
}

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
