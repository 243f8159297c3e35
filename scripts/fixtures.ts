/**
 * npm run fixtures -- --rows N --layout 2026|2025|2022 --format xlsx|zip|xls [--wb-style] [--out DIR] [--seed S] [--week W]
 *                     [--english] [--articles N] [--zip-extras] [--unknown "Операция"]
 * Writes a generated WB detailed report and `<file>.expected.json` (the per-article answer key), prints both paths.
 * Without --wb-style the xlsx is in the shape of a file re-saved by Excel (shared strings).
 */
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { writeReportFile, type FixtureFormat, type Layout } from './fixtures/generate';

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(2);
}

export const FIXTURES_USAGE = `usage: npm run fixtures -- --rows N [options]

Writes a generated WB detailed report and <file>.expected.json (the per-article answer key), prints both paths.

  --rows N            data rows (required)
  --layout L          2026 (default), 2025 or 2022 column layout
  --format F          xlsx (default), zip (the portal's download) or xls
  --wb-style          xlsx written the way the WB portal writes it (inline strings); default: as re-saved by Excel
  --articles N        number of distinct articles (default: derived from --rows)
  --out DIR           output folder (default .cache/fixtures)
  --seed S            random seed (default 1)
  --week W            week of the period (default: seed % 20); the same seller and articles, its own report number
  --english           English-locale headers
  --zip-extras        add a __MACOSX entry and a readme to the zip
  --unknown TEXT      add rows of an unknown operation (repeatable)
  -h, --help          this text
`;

function main(): void {
  if (process.argv.includes('--help') || process.argv.includes('-h')) {
    process.stdout.write(FIXTURES_USAGE);
    return;
  }
  const { values } = parseArgs({
    options: {
      rows: { type: 'string' },
      layout: { type: 'string', default: '2026' },
      format: { type: 'string', default: 'xlsx' },
      'wb-style': { type: 'boolean', default: false },
      out: { type: 'string', default: path.join('.cache', 'fixtures') },
      seed: { type: 'string', default: '1' },
      week: { type: 'string' },
      english: { type: 'boolean', default: false },
      articles: { type: 'string' },
      'zip-extras': { type: 'boolean', default: false },
      unknown: { type: 'string', multiple: true },
    },
    allowPositionals: false,
  });
  const rows = Number(values.rows);
  if (!Number.isInteger(rows) || rows < 1) fail('--rows N is required (a positive integer)');
  const layout = values.layout as Layout;
  if (!['2026', '2025', '2022'].includes(layout)) fail('--layout must be 2026, 2025 or 2022');
  const format = values.format as FixtureFormat;
  if (!['xlsx', 'zip', 'xls'].includes(format)) fail('--format must be xlsx, zip or xls');
  const seed = Number(values.seed);
  if (!Number.isInteger(seed)) fail('--seed must be an integer');
  const week = values.week === undefined ? undefined : Number(values.week);
  if (week !== undefined && (!Number.isInteger(week) || week < 0)) fail('--week must be a whole number');
  const articles = values.articles === undefined ? undefined : Number(values.articles);
  if (articles !== undefined && (!Number.isInteger(articles) || articles < 1))
    fail('--articles must be a positive integer');

  const started = Date.now();
  const r = writeReportFile(
    {
      rows,
      layout,
      format,
      wbStyle: values['wb-style'],
      seed,
      englishHeaders: values.english,
      articles,
      week,
      zipExtras: values['zip-extras'],
      unknownOperations: values.unknown,
    },
    values.out,
  );
  process.stdout.write(`${r.path}\n${r.expectedPath}\n`);
  process.stderr.write(
    `${r.expected.rows} rows, ${r.expected.articles.length} articles, period ${r.expected.period_from}…${r.expected.period_to}, ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
  );
}

try {
  main();
} catch (err) {
  fail(err instanceof Error ? err.message : String(err));
}
