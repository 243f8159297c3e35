/**
 * The documentation's code compiles: every fenced ```ts (```typescript, ```tsx) block of README.md and
 * docs/*.md is type-checked with the TypeScript compiler against the real code, so a sample naming a
 * function, a field or an argument the code no longer has fails here, naming the document, the line
 * and the compiler's error.
 *
 * Where a sample sits:
 * - a block whose first line is a comment naming a file of the repository (`// functions/x/y.handler.ts`)
 *   is checked as if written in that file: it sees the file's imports and top-level names (its own
 *   `const deps` may shadow the file's); the block's own imports are added to the file's;
 * - any other block sits at the repository root and imports what it uses (`./shared/engine`).
 * A block runs as the body of an async function (so `await` works and its names do not collide with
 * the file's); `export` in front of its declarations is dropped. `…` is not TypeScript: a sample shows
 * real, complete code. A block that cannot be real code (a sketch) says so: ```ts illustrative — keep
 * those few.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = path.resolve(__dirname, '..');

/** One fenced TypeScript block of a document. */
export interface Sample {
  /** The document, relative to the repository root (`docs/ARCHITECTURE.md`). */
  doc: string;
  /** The line of the opening fence (1-based). */
  line: number;
  /** The info string after the fence (`ts`, `ts illustrative`). */
  info: string;
  code: string;
}

const LANGS = new Set(['ts', 'typescript', 'tsx']);

/** The fenced TypeScript blocks of one markdown text. */
export function samplesOf(doc: string, md: string): Sample[] {
  const out: Sample[] = [];
  const lines = md.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*([^`\s]*)(.*)$/.exec(lines[i]!);
    if (!open) continue;
    const [, indent, fence, lang, rest] = open;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const l = lines[j]!;
      if (l.trim().startsWith(fence!) && l.trim().replace(/[`~]/g, '') === '') break;
      body.push(l.startsWith(indent!) ? l.slice(indent!.length) : l);
    }
    if (LANGS.has(lang!.toLowerCase())) {
      out.push({ doc, line: i + 1, info: `${lang}${rest}`.trim(), code: body.join('\n') });
    }
    i = j;
  }
  return out;
}

export function isIllustrative(s: Sample): boolean {
  return /\billustrative\b/.test(s.info);
}

/** The file a block says it sits in (its first line `// path/to/file.ts`), when that file exists. */
export function placeOf(s: Sample, base = root): string | undefined {
  const first = /^\s*\/\/\s*(\S+\.(?:ts|tsx))\b/.exec(s.code.split('\n')[0] ?? '');
  if (!first) return undefined;
  const file = first[1]!.replace(/^\.\//, '');
  return existsSync(path.join(base, file)) ? file : undefined;
}

interface Segment {
  /** First line of the segment in the virtual file (0-based). */
  at: number;
  /** Its line count. */
  lines: number;
  /** The block's line (0-based, in the block's code) it starts from. */
  from: number;
}

interface Virtual {
  sample: Sample;
  file: string;
  text: string;
  segments: Segment[];
}

const blank = (text: string) => text.replace(/[^\n]/g, ' ');
const lineCount = (text: string) => text.split('\n').length;

/** The virtual file a block is checked as, and where each of its lines lands in it. */
function virtualOf(s: Sample, index: number, base: string): Virtual {
  const place = placeOf(s, base);
  const tsx = s.info.startsWith('tsx') || (place?.endsWith('.tsx') ?? false);
  const slug = s.doc.replace(/[^A-Za-z0-9]+/g, '-');
  const name = `doc-sample-${slug}-L${s.line}-${index}.${tsx ? 'tsx' : 'ts'}`;
  const file = path.join(base, place ? path.dirname(place) : '', name);
  const source = ts.createSourceFile(
    name,
    s.code,
    ts.ScriptTarget.Latest,
    true,
    tsx ? ts.ScriptKind.TSX : ts.ScriptKind.TS,
  );
  let body = s.code;
  const imports: Array<{ text: string; from: number }> = [];
  const cut = (start: number, end: number) => {
    body = body.slice(0, start) + blank(body.slice(start, end)) + body.slice(end);
  };
  for (const st of source.statements) {
    const start = st.getStart(source);
    if (ts.isImportDeclaration(st) || ts.isImportEqualsDeclaration(st)) {
      imports.push({ text: st.getText(source), from: source.getLineAndCharacterOfPosition(start).line });
      cut(start, st.end);
    } else if (ts.isExportDeclaration(st) || ts.isExportAssignment(st)) {
      cut(start, st.end);
    } else if (ts.canHaveModifiers(st)) {
      for (const m of ts.getModifiers(st) ?? []) {
        if (m.kind === ts.SyntaxKind.ExportKeyword || m.kind === ts.SyntaxKind.DefaultKeyword) {
          cut(m.getStart(source), m.end);
        }
      }
    }
  }
  const segments: Segment[] = [];
  let text = '';
  for (const im of imports) {
    segments.push({ at: lineCount(text) - 1, lines: lineCount(im.text), from: im.from });
    text += `${im.text}\n`;
  }
  if (place) text += `${readFileSync(path.join(base, place), 'utf8')}\n`;
  text += `export {};\nasync function __docSample${index}() {\n`;
  segments.push({ at: lineCount(text) - 1, lines: lineCount(body), from: 0 });
  text += `${body}\n}\n`;
  return { sample: s, file, text, segments };
}

function optionsOf(tsconfig: string): ts.CompilerOptions {
  const read = ts.readConfigFile(tsconfig, (f) => ts.sys.readFile(f));
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, path.dirname(tsconfig));
  return { ...parsed.options, noEmit: true };
}

/**
 * Type-checks the blocks (the illustrative ones left out) against the code under `base`; one list of
 * messages per block, each `docs/X.md:LINE: TS2304 Cannot find name 'x'.` (LINE: the document's line).
 */
export function checkSamples(samples: Sample[], base = root): string[][] {
  const virtuals = samples.map((s, i) => virtualOf(s, i, base));
  const groups = new Map<string, Virtual[]>();
  for (const v of virtuals) {
    const config = path.relative(base, v.file).startsWith(`web${path.sep}`) ? 'web/tsconfig.json' : 'tsconfig.json';
    groups.set(config, [...(groups.get(config) ?? []), v]);
  }
  const out = new Map<Virtual, string[]>();
  for (const [config, group] of groups) {
    const options = optionsOf(path.join(base, config));
    const byName = new Map(group.map((v) => [path.resolve(v.file), v]));
    const host = ts.createCompilerHost(options);
    const { fileExists, readFile, getSourceFile } = host;
    host.fileExists = (f) => byName.has(path.resolve(f)) || fileExists.call(host, f);
    host.readFile = (f) => byName.get(path.resolve(f))?.text ?? readFile.call(host, f);
    host.getSourceFile = (f, lang, ...rest) => {
      const v = byName.get(path.resolve(f));
      return v ? ts.createSourceFile(f, v.text, lang, true) : getSourceFile.call(host, f, lang, ...rest);
    };
    const program = ts.createProgram([...byName.keys()], options, host);
    for (const v of group) {
      const sf = program.getSourceFile(path.resolve(v.file))!;
      const diags = [...program.getSyntacticDiagnostics(sf), ...program.getSemanticDiagnostics(sf)];
      out.set(
        v,
        diags.map((d) => {
          const at = d.start === undefined ? 0 : sf.getLineAndCharacterOfPosition(d.start).line;
          const seg = v.segments.find((g) => at >= g.at && at < g.at + g.lines);
          // The fence is line `line`; the block's first line is line + 1.
          const docLine = v.sample.line + 1 + (seg ? seg.from + (at - seg.at) : 0);
          const where = seg ? '' : ` (in ${placeOf(v.sample, base)}, seen from the block)`;
          return `${v.sample.doc}:${docLine}${where}: TS${d.code} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
        }),
      );
    }
  }
  return virtuals.map((v) => out.get(v) ?? []);
}

const docs = [
  'README.md',
  ...readdirSync(path.join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
];
const all = docs.flatMap((doc) => samplesOf(doc, readFileSync(path.join(root, doc), 'utf8')));
const checked = all.filter((s) => !isIllustrative(s));
/** One program for every block of the documents (built on first use). */
let results: Map<Sample, string[]> | undefined;
const resultOf = (s: Sample) => (results ??= new Map(checkSamples(checked).map((r, i) => [checked[i]!, r]))).get(s);

describe('code samples of the documentation', () => {
  it('finds the TypeScript blocks, and few are marked illustrative', () => {
    expect(checked.length).toBeGreaterThanOrEqual(2);
    expect(all.filter(isIllustrative).map((s) => `${s.doc}:${s.line}`).length).toBeLessThanOrEqual(3);
  });

  it('reads blocks, their info string and indented fences', () => {
    const md = [
      'text',
      '```ts',
      'const a = 1;',
      '```',
      '',
      '  ```ts illustrative',
      '  f(…)',
      '  ```',
      '```bash',
      'ls',
      '```',
    ];
    expect(samplesOf('x.md', md.join('\n'))).toEqual([
      { doc: 'x.md', line: 2, info: 'ts', code: 'const a = 1;' },
      { doc: 'x.md', line: 6, info: 'ts illustrative', code: 'f(…)' },
    ]);
  });

  it('fails a sample naming what the code does not have, with the document line and the error', () => {
    const [missing, wrongArgs, inFile, good] = checkSamples([
      {
        doc: 'docs/X.md',
        line: 10,
        info: 'ts',
        code: "import { slug } from './scripts/docs-links.test';\n\nnoSuchFunction(slug('A'));",
      },
      {
        doc: 'docs/X.md',
        line: 20,
        info: 'ts',
        code: "import { slug } from './scripts/docs-links.test';\nslug(1, 2);",
      },
      {
        doc: 'docs/X.md',
        line: 30,
        info: 'ts',
        code: '// scripts/docs-samples.test.ts\nconst n: number = samplesOf("a", "b");',
      },
      {
        doc: 'docs/X.md',
        line: 40,
        info: 'ts',
        code: '// scripts/docs-samples.test.ts\nexport const n: number = samplesOf("a", "b").length;\nawait Promise.resolve(n);',
      },
    ]);
    expect(missing).toEqual([`docs/X.md:13: TS2304 Cannot find name 'noSuchFunction'.`]);
    expect(wrongArgs).toEqual([expect.stringMatching(/^docs\/X\.md:22: TS2554 Expected 1 arguments, but got 2\./)]);
    expect(inFile).toEqual([
      expect.stringMatching(/^docs\/X\.md:32: TS2322 Type 'Sample\[\]' is not assignable to type 'number'/),
    ]);
    expect(good).toEqual([]);
  }, 180_000);

  it.each(checked.map((s) => [`${s.doc}:${s.line}`, s] as const))(
    '%s compiles against the code',
    (_, s) => {
      expect(resultOf(s), `${s.doc}, the \`\`\`${s.info} block at line ${s.line}`).toEqual([]);
    },
    180_000,
  );
});
