/**
 * Writes fixtures/templates/summary-template.xls, the legacy summary template that
 * POST /api/reports/summary-export fills (layout in shared/workbooks/summary-template.ts).
 * Run: npx tsx scripts/make-summary-template.ts
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { SUMMARY_TEMPLATE_REPO_PATH, buildSummaryTemplate } from '../shared/workbooks/summary-template';

const target = path.resolve(__dirname, '..', SUMMARY_TEMPLATE_REPO_PATH);
mkdirSync(path.dirname(target), { recursive: true });
const bytes = buildSummaryTemplate();
writeFileSync(target, bytes);
console.log(`wrote ${path.relative(process.cwd(), target)} (${bytes.length} bytes)`);
