/**
 * The documentation stands on its own: every relative link in README.md and docs/*.md points to a file
 * of this repository (and to a heading of it when the link has an #anchor), and every file named by its
 * path (`shared/engine/fields.ts`, in code or prose) exists. Nothing points outside the repository
 * (nothing beside it, which a clone does not have).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(__dirname, '..');

const files = [
  'README.md',
  ...readdirSync(path.join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** Markdown text without fenced code blocks and inline code (links there are examples, not links). */
function prose(md: string): string {
  return md.replace(/^(```|~~~)[\s\S]*?^\1/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's heading anchor: lower case, punctuation dropped (letters of any script kept), spaces → '-'. */
export function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/`/g, '')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchors(file: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of readFileSync(file, 'utf8')
    .replace(/^(```|~~~)[\s\S]*?^\1/gm, '')
    .matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = slug(m[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

function links(md: string): string[] {
  return [...prose(md).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1]!);
}

describe('documentation links', () => {
  it('finds the documents (README.md and docs/*.md)', () => {
    expect(files).toEqual(
      expect.arrayContaining(['README.md', 'docs/API.md', 'docs/ARCHITECTURE.md', 'docs/OPERATIONS.md']),
    );
    expect(files).toEqual(expect.arrayContaining(['docs/METRICS.md', 'docs/WB-REPORT.md']));
  });

  it('slugs headings the way GitHub does', () => {
    expect(slug('Errors')).toBe('errors');
    expect(slug('Two commands')).toBe('two-commands');
    expect(slug('`POST /api/auth/login` — public')).toBe('post-apiauthlogin--public');
    expect(slug('Налоги и НДС')).toBe('налоги-и-ндс');
  });

  for (const file of files) {
    it(`${file}: every relative link points to an existing file (and heading)`, () => {
      const broken: string[] = [];
      for (const target of links(readFileSync(path.join(root, file), 'utf8'))) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:
        const [rel, anchor] = target.split('#', 2) as [string, string | undefined];
        const dest = rel === '' ? path.join(root, file) : path.resolve(path.dirname(path.join(root, file)), rel);
        if (!dest.startsWith(root + path.sep) && dest !== root) {
          broken.push(`${target} (outside the repository)`);
          continue;
        }
        if (!existsSync(dest)) {
          broken.push(`${target} (no such file)`);
          continue;
        }
        if (anchor !== undefined && statSync(dest).isFile() && !anchors(dest).has(decodeURIComponent(anchor))) {
          broken.push(`${target} (no such heading)`);
        }
      }
      expect(broken).toEqual([]);
    });
  }

  /** Repository paths a text names, in code or in prose (`shared/engine/fields.ts`); not `<area>/x.ts` patterns. */
  const namedPaths = (text: string) =>
    [
      ...text.matchAll(
        /(?<![\w./<>{}*-])(?:shared|functions|scripts|test|web|fixtures|docs)\/[\w./-]+\.(?:ts|tsx|js|json|md|yml|xlsx|html)\b/g,
      ),
    ].map((m) => m[0]);

  it('finds the file paths a text names', () => {
    expect(namedPaths('see `shared/engine/fields.ts`, functions/<area>/x.handler.ts and web/src/a.tsx.')).toEqual([
      'shared/engine/fields.ts',
      'web/src/a.tsx',
    ]);
  });

  it('every file a document names by its path exists', () => {
    const missing = files.flatMap((file) =>
      readFileSync(path.join(root, file), 'utf8')
        .split('\n')
        .flatMap((line, i) => namedPaths(line).map((p) => ({ p, at: `${file}:${i + 1}` })))
        .filter(({ p }) => !existsSync(path.join(root, p)))
        .map(({ p, at }) => `${at}: ${p}`),
    );
    expect(missing).toEqual([]);
  });

  it('no document refers to a folder beside the repository', () => {
    const found = files.flatMap((file) =>
      readFileSync(path.join(root, file), 'utf8')
        .split('\n')
        .map((line, i) => `${file}:${i + 1}: ${line}`)
        .filter((line) => /\.\.\/shar[e]d\/docs|hand[b]ook/i.test(line.slice(line.indexOf(': ') + 2))),
    );
    expect(found).toEqual([]);
  });
});
