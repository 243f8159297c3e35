/**
 * No import cycles in shared/, functions/, scripts/ and web/src/ (docs/CONVENTIONS.md, Wiring): the
 * import graph, type-only imports included, as TypeScript resolves it (tsconfig.json), has no strongly
 * connected component of more than one module and no module importing itself. The same graph madge
 * draws (`npx madge --circular --extensions ts --ts-config tsconfig.json shared functions scripts web/src`).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = path.resolve(__dirname, '..');
const ROOTS = ['shared', 'functions', 'scripts', 'web/src'];

/**
 * Cycles allowed to stay: none (issue 28 broke the last ones). Each entry would be a cycle's modules,
 * sorted; the test fails when one of them is gone too, so the list can only shrink.
 */
const KNOWN: string[][] = [];

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) {
      if (e.name !== 'node_modules' && !e.name.startsWith('.')) out.push(...sources(rel));
    } else if (/\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts')) out.push(rel);
  }
  return out;
}

function importGraph(): Map<string, string[]> {
  const config = ts.getParsedCommandLineOfConfigFile(
    path.join(root, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  );
  const options = config?.options ?? {};
  const graph = new Map<string, string[]>();
  for (const file of ROOTS.flatMap(sources)) {
    const abs = path.join(root, file);
    const { importedFiles } = ts.preProcessFile(readFileSync(abs, 'utf8'), true, true);
    const targets: string[] = [];
    for (const { fileName } of importedFiles) {
      const resolved = ts.resolveModuleName(fileName, abs, options, ts.sys).resolvedModule;
      if (!resolved || resolved.isExternalLibraryImport) continue;
      const rel = path.relative(root, resolved.resolvedFileName).split(path.sep).join('/');
      if (!rel.startsWith('..') && !rel.endsWith('.d.ts')) targets.push(rel);
    }
    graph.set(file, targets);
  }
  return graph;
}

/** Tarjan's strongly connected components with more than one module, or one that imports itself. */
function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || (graph.get(v) ?? []).includes(v)) out.push(scc.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return out;
}

describe('import cycles', () => {
  const found = cycles(importGraph());

  it('finds a cycle when there is one (the check itself)', () => {
    const g = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['a.ts']],
    ]);
    expect(cycles(g)).toEqual([['a.ts', 'b.ts', 'c.ts']]);
  });

  it('reads the real graph (a known edge is there)', () => {
    expect(importGraph().get('shared/store/report-record.ts')).toContain('shared/reports/domain/lifecycle.ts');
  });

  it('has none beyond the known ones, and every known one still exists', () => {
    const key = (c: string[]) => c.join(' > ');
    expect(found.map(key).sort()).toEqual(KNOWN.map(key).sort());
  });
});
