/**
 * Each route's error list (shared/contract/routes.ts) against the code: from the route's handler file
 * (serverless.yml names it), the TypeScript compiler's checker follows every function, method, class and
 * constant the code refers to (through any number of imports), and collects the error codes it can throw:
 * - a string literal typed as an error code (the code argument of AppError, ReportError and the factories
 *   of shared/errors.ts: `notFound(msg, 'report_not_found')`, `unprocessable('overlapping_reports', …)`);
 * - the default code of a factory called without one (`notFound()` → not_found);
 * - the `code` of an Error subclass constructed with `new` (FieldNotCorrectableError → field_not_correctable).
 * It reads code, not signatures, so use cases taking their dependencies in other ways are followed alike;
 * a composition's shorthand property (`{ buildItems }`) is followed to the value it copies (the last
 * describe holds that on a fixture program).
 * The middleware of shared/http answers the codes of implicitErrors (and a multipart route's file
 * errors), so the walk stops there; shared/errors.ts (the mapper) and the contract are not walked either.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES, type ErrorCode } from './errors';
import { errorsOf, ROUTES, type RouteSpec } from './routes';

const root = path.join(__dirname, '..', '..');
const CODES = new Set<string>(ERROR_CODES);
const isCode = (s: string): s is ErrorCode => CODES.has(s);

/** Where the walk stops: the middleware (its codes are the route kind's), the mapper, the contract, libraries. */
function isBoundary(file: string): boolean {
  const rel = path.relative(root, file).split(path.sep).join('/');
  return (
    rel.startsWith('node_modules/') ||
    rel.startsWith('..') ||
    file.endsWith('.d.ts') ||
    rel.startsWith('shared/http/') ||
    rel === 'shared/errors.ts' ||
    rel.startsWith('shared/contract/')
  );
}

/**
 * Codes the walk reaches that the route does not answer: caught on the way, or reached only through code
 * the route does not run. Each with the reason; a code reached anywhere else still fails.
 */
/** Store functions that page through their own records decode only cursors they wrote themselves. */
const NO_CURSOR = 'not verified: reached through the store; the route takes no cursor';
/** Own costs start the covered reports' rebuilds (rebuild-covered.ts), each in its own try: a busy one is marked, never answered. */
const OWN_COSTS_REBUILD =
  'rebuild-covered.ts: each covered report is rebuilt in its own try; a busy one is marked rebuild_again';

/** The report composition (deps.ts) binds the engine (`{ buildItems }`) for the worker. */
const NO_CORRECTIONS = 'the worker re-applies corrections on a rebuild only; an upload has none';

/** The user store's update with an empty patch reads the user back; the caller was just authenticated. */
const USER_GONE = 'not verified: users.repo updateUser with an empty patch and a vanished user';

const REACHED_NOT_ANSWERED: Partial<Record<string, Partial<Record<ErrorCode, string>>>> = {
  deleteReport: {
    transaction_conflict: "caught in shared/reports/queries.ts removeReport: a copy's refund failing is only logged",
    not_found: "caught in shared/reports/queries.ts removeReport: a copy's refund failing is only logged",
  },
  confirm: { unauthorized: 'verifyToken answers it for access tokens only; a mailed link gets invalid_token' },
  importProducts: { zip_bomb: "shared/catalog/import-file.ts turns the reader's codes into the import's own" },
  importPeriodCosts: {
    zip_bomb: "shared/costs/table-file.ts turns the reader's codes into corrupt_file / too_many_period_costs",
    too_many_entries: "shared/costs/table-file.ts turns the reader's codes into corrupt_file",
    cell_too_long: "shared/costs/table-file.ts turns the reader's codes into corrupt_file",
    too_many_rows: "shared/costs/table-file.ts turns the reader's codes into too_many_period_costs",
  },
  importPurchases: {
    zip_bomb: "shared/costs/table-file.ts turns the reader's codes into corrupt_file / too_many_purchases",
    too_many_entries: "shared/costs/table-file.ts turns the reader's codes into corrupt_file",
    cell_too_long: "shared/costs/table-file.ts turns the reader's codes into corrupt_file",
    too_many_rows: "shared/costs/table-file.ts turns the reader's codes into too_many_purchases",
  },
  importOwnCosts: {
    zip_bomb: "shared/catalog/import-file.ts turns the reader's codes into the import's own",
    report_busy: OWN_COSTS_REBUILD,
    invalid_cursor: NO_CURSOR,
  },
  listOwnCosts: { report_busy: OWN_COSTS_REBUILD, invalid_cursor: NO_CURSOR },
  deleteOwnCost: { report_busy: OWN_COSTS_REBUILD, invalid_cursor: NO_CURSOR },
  rebuildOne: { invalid_cursor: NO_CURSOR },
  rebuildMany: {
    report_busy: 'a busy report is skipped with reason report_busy (rebuild.ts rebuildMany), not answered',
    report_not_found:
      'each report is rebuilt in its own try: a failure is skipped with its code (rebuild.ts rebuildMany)',
    invalid_cursor: NO_CURSOR,
  },
  updateReport: { invalid_cursor: NO_CURSOR },
  summaryExport: { invalid_cursor: NO_CURSOR },
  combine: {
    field_not_correctable: "the sources' manual values were accepted when they were set",
    invalid_manual_value: "the sources' manual values were accepted when they were set",
    value_out_of_range: "the sources' manual values were accepted when they were set",
    invalid_cursor: NO_CURSOR,
  },
  recombine: { invalid_cursor: NO_CURSOR },
  combineStatus: { invalid_cursor: NO_CURSOR },
  wbConnect: {
    forbidden:
      "shared/marketplaces/wb/http.ts: the kind of WB's 403 answer (a string, not a thrown code); connections.ts answers wb_token_forbidden",
    invalid_seller_number:
      "connections.ts ensureSellerByNumber with the WB token's seller id: WB checked the token first, and its ids are numbers",
    not_found: USER_GONE,
  },
  putProduct: { field_not_correctable: 'put.handler.ts checks cost_price only, a correctable field' },
  putOwnCost: {
    field_not_correctable: 'own-costs.handler.ts checks own_cost_price only, a correctable field',
    report_busy: OWN_COSTS_REBUILD,
    invalid_cursor: NO_CURSOR,
  },
  getReport: { invalid_cursor: NO_CURSOR },
  upload: {
    not_found: USER_GONE,
    invalid_cursor: NO_CURSOR,
    field_not_correctable: NO_CORRECTIONS,
    invalid_manual_value: NO_CORRECTIONS,
    report_busy: "rebuild.ts, reached through the report use cases' composition; an upload never rebuilds",
    source_missing: "the worker's rebuild path; an upload's source was stored by the same request",
  },
};

/** The codes shared/http answers for a route of this kind (besides implicitErrors). */
function middlewareCodes(r: RouteSpec): ErrorCode[] {
  return r.multipart ? ['invalid_multipart', 'file_too_large'] : [];
}

function isErrorCodeType(t: ts.Type | undefined): boolean {
  if (!t) return false;
  // An optional code parameter (`code: CodeWithStatus<404> = 'not_found'`) is typed `… | undefined`.
  const parts = (t.isUnion() ? t.types : [t]).filter((p) => !(p.flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Null)));
  return parts.length > 0 && parts.every((p) => p.isStringLiteral() && isCode(p.value));
}

class ErrorWalker {
  private readonly checker: ts.TypeChecker;

  /** Where each code was first found, for the failure message. */
  readonly where = new Map<string, string>();

  constructor(readonly program: ts.Program) {
    this.checker = program.getTypeChecker();
  }

  /** Every code the statements of `file` can throw, following what they refer to. */
  codesOfFile(file: string): Set<ErrorCode> {
    const sf = this.program.getSourceFile(file);
    if (!sf) throw new Error(`not in the program: ${file}`);
    const out = new Set<ErrorCode>();
    this.walk(sf, out, new Set());
    return out;
  }

  private declarationOf(node: ts.Node): ts.Declaration | undefined {
    // `{ buildItems }` in a composition: the name stands for the value it copies, not for the property.
    const p = node.parent;
    let sym =
      p && ts.isShorthandPropertyAssignment(p) && p.name === node
        ? this.checker.getShorthandAssignmentValueSymbol(p)
        : this.checker.getSymbolAtLocation(node);
    if (!sym) return undefined;
    if (sym.flags & ts.SymbolFlags.Alias) sym = this.checker.getAliasedSymbol(sym);
    const decl = sym.valueDeclaration ?? sym.declarations?.[0];
    if (!decl || isBoundary(decl.getSourceFile().fileName)) return undefined;
    return decl;
  }

  /** The code-bearing part of a declaration: a function's body, a constant's initializer, a class. */
  private targetOf(decl: ts.Declaration): ts.Node | undefined {
    if (ts.isFunctionDeclaration(decl) || ts.isMethodDeclaration(decl) || ts.isConstructorDeclaration(decl))
      return decl;
    if (ts.isGetAccessorDeclaration(decl) || ts.isSetAccessorDeclaration(decl)) return decl;
    if (ts.isVariableDeclaration(decl)) return decl.initializer;
    if (ts.isPropertyAssignment(decl)) return decl.initializer;
    if (ts.isShorthandPropertyAssignment(decl)) {
      // `deps.buildItems(…)` where deps is `{ buildItems }`: the value the property copies.
      const value = this.declarationOf(decl.name);
      return value && value !== decl ? this.targetOf(value) : undefined;
    }
    if (ts.isPropertyDeclaration(decl)) return decl.initializer;
    if (ts.isClassDeclaration(decl)) return decl;
    return undefined;
  }

  /** Everything `node` refers to is walked once per handler file (`seen`): reachability, not paths. */
  private walk(node: ts.Node, out: Set<ErrorCode>, seen: Set<ts.Node>): void {
    const visit = (n: ts.Node): void => {
      if (ts.isStringLiteralLike(n) && isCode(n.text) && !this.isComparison(n)) {
        if (isErrorCodeType(this.checker.getContextualType(n as ts.Expression))) this.add(out, n.text, n);
      }
      if (ts.isCallExpression(n) || ts.isNewExpression(n)) this.defaultCodes(n, out);
      if (ts.isNewExpression(n)) this.errorClassCode(n, out);
      if (ts.isIdentifier(n) && !this.isDeclarationName(n)) {
        const decl = this.declarationOf(n);
        const target = decl && this.targetOf(decl);
        if (target && !seen.has(target)) this.follow(target, out, seen);
      }
      ts.forEachChild(n, visit);
    };
    ts.forEachChild(node, visit);
  }

  private follow(target: ts.Node, out: Set<ErrorCode>, seen: Set<ts.Node>): void {
    seen.add(target);
    this.walk(target, out, seen);
  }

  private isDeclarationName(n: ts.Identifier): boolean {
    const p = n.parent;
    return (
      (ts.isVariableDeclaration(p) ||
        ts.isFunctionDeclaration(p) ||
        ts.isParameter(p) ||
        ts.isPropertyDeclaration(p) ||
        ts.isPropertyAssignment(p) ||
        ts.isMethodDeclaration(p) ||
        ts.isClassDeclaration(p) ||
        ts.isImportSpecifier(p) ||
        ts.isImportClause(p)) &&
      p.name === n
    );
  }

  /** `e.code === 'report_busy'` and `case 'x':` read a code, they do not throw one. */
  private isComparison(n: ts.Node): boolean {
    const p = n.parent;
    if (ts.isCaseClause(p)) return true;
    if (ts.isBinaryExpression(p)) {
      const k = p.operatorToken.kind;
      return (
        k === ts.SyntaxKind.EqualsEqualsEqualsToken ||
        k === ts.SyntaxKind.ExclamationEqualsEqualsToken ||
        k === ts.SyntaxKind.EqualsEqualsToken ||
        k === ts.SyntaxKind.ExclamationEqualsToken
      );
    }
    return false;
  }

  /** A factory called without its code argument throws its parameter's default code (`notFound()` → not_found). */
  private defaultCodes(call: ts.CallExpression | ts.NewExpression, out: Set<ErrorCode>): void {
    const sig = this.checker.getResolvedSignature(call);
    const decl = sig?.getDeclaration();
    if (!decl || !('parameters' in decl)) return;
    const args = call.arguments ?? ts.factory.createNodeArray();
    decl.parameters.forEach((p, i) => {
      if (i < args.length || !p.initializer || !ts.isStringLiteralLike(p.initializer)) return;
      if (isCode(p.initializer.text)) this.add(out, p.initializer.text, call);
    });
  }

  /** `new SomeError()` of an Error subclass with `code = 'x'`: that code. */
  private errorClassCode(n: ts.NewExpression, out: Set<ErrorCode>): void {
    let sym = this.checker.getSymbolAtLocation(n.expression);
    if (sym && sym.flags & ts.SymbolFlags.Alias) sym = this.checker.getAliasedSymbol(sym);
    const decl = sym?.valueDeclaration;
    if (!decl || !ts.isClassDeclaration(decl)) return;
    for (const m of decl.members) {
      if (
        ts.isPropertyDeclaration(m) &&
        m.name.getText() === 'code' &&
        m.initializer &&
        ts.isStringLiteralLike(m.initializer) &&
        isCode(m.initializer.text)
      )
        this.add(out, m.initializer.text, n);
    }
  }

  private add(out: Set<ErrorCode>, code: ErrorCode, at: ts.Node): void {
    out.add(code);
    if (!this.where.has(code)) {
      const sf = at.getSourceFile();
      const line = sf.getLineAndCharacterOfPosition(at.getStart()).line + 1;
      this.where.set(code, `${path.relative(root, sf.fileName)}:${line}`);
    }
  }
}

/** serverless.yml: function name → its handler file. */
function handlerFiles(): Map<string, string> {
  const yaml = createRequire(require.resolve('osls/package.json'))('js-yaml') as { load(text: string): unknown };
  const config = yaml.load(readFileSync(path.join(root, 'serverless.yml'), 'utf8')) as {
    functions: Record<string, { handler: string }>;
  };
  const out = new Map<string, string>();
  for (const [fn, def] of Object.entries(config.functions)) {
    out.set(fn, path.join(root, def.handler.replace(/\.[^.]+$/, '') + '.ts'));
  }
  return out;
}

const routes = Object.entries(ROUTES) as Array<[string, RouteSpec]>;
const files = handlerFiles();
/** Per handler file: the codes its code can throw, and the routes it serves (one Lambda may serve several). */
const thrown = new Map<string, Set<ErrorCode>>();
let walker: ErrorWalker;

describe('each route lists the error codes its handler can throw', () => {
  beforeAll(() => {
    const configFile = path.join(root, 'tsconfig.json');
    const config = ts.readConfigFile(configFile, (f) => ts.sys.readFile(f));
    const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
    const byFn = [...new Set(routes.map(([, r]) => files.get(r.fn)!))];
    const program = ts.createProgram(byFn, { ...parsed.options, noEmit: true });
    walker = new ErrorWalker(program);
    for (const f of byFn) thrown.set(f, walker.codesOfFile(f));
  }, 120_000);

  it.each(routes)('%s', (key, r) => {
    const file = files.get(r.fn);
    expect(file, `serverless.yml has no function ${r.fn}`).toBeDefined();
    const siblings = routes.filter(([, o]) => o.fn === r.fn).map(([, o]) => o);
    // A handler file serving several routes: its codes are checked against the union of their lists.
    const siblingKeys = routes.filter(([, o]) => o.fn === r.fn).map(([k]) => k);
    const listed = new Set<string>(siblings.flatMap((o) => [...errorsOf(o), ...middlewareCodes(o)]));
    for (const k of siblingKeys) for (const c of Object.keys(REACHED_NOT_ANSWERED[k] ?? {})) listed.add(c);
    const notListed = [...thrown.get(file!)!]
      .filter((c) => !listed.has(c))
      .sort()
      .map((c) => `${c} (${walker.where.get(c)})`);
    // An exception that the walk no longer reaches is stale: it would hide the code if it came back.
    const own = new Set<string>([...thrown.get(file!)!]);
    const stale = Object.keys(REACHED_NOT_ANSWERED[key] ?? {}).filter((c) => !own.has(c));
    expect(stale, `${key}: REACHED_NOT_ANSWERED lists codes the walk does not reach`).toEqual([]);
    expect(notListed, `${key}: thrown by ${path.relative(root, file!)} but not in its errors`).toEqual([]);
  });

  it('finds codes deep in the use cases (the walk reaches them)', () => {
    const upload = thrown.get(files.get(ROUTES.upload.fn)!)!;
    // The reader's codes come from shared/engine through shared/reports; idempotency from the use case.
    expect(upload.has('missing_headers')).toBe(true);
    expect(upload.has('idempotency_key_reused')).toBe(true);
    const manual = thrown.get(files.get(ROUTES.manualValue.fn)!)!;
    expect(manual.has('field_not_correctable')).toBe(true);
  });
});

describe('the walk follows a composition’s shorthand properties (`{ buildItems }`)', () => {
  // A route's handler that reaches a use case only through a composition written with shorthand
  // properties, as shared/reports/*deps.ts are: the code the use case throws must be found, so a route
  // that does not list it fails the check above.
  const dir = path.join(root, 'shared', '__route_errors_fixture__');
  const files: Record<string, string> = {
    'use-case.ts': `import { conflict } from '../errors';
export async function startThing(): Promise<void> { throw conflict('report_busy', 'busy'); }
`,
    'deps.ts': `import { startThing } from './use-case';
export const thingDeps = { startThing };
`,
    // The composition handed to a use case as its deps, called through the port's type.
    'passed.handler.ts': `import { thingDeps } from './deps';
function run(deps: { startThing(): Promise<void> }) { return deps.startThing(); }
export async function main() { await run(thingDeps); }
`,
    // The composition's property called directly.
    'called.handler.ts': `import { thingDeps } from './deps';
export async function main() { await thingDeps.startThing(); }
`,
  };
  const virtual = new Map(Object.entries(files).map(([f, text]) => [path.join(dir, f), text]));

  function walkerOf(entry: string): ErrorWalker {
    const config = ts.readConfigFile(path.join(root, 'tsconfig.json'), (f) => ts.sys.readFile(f));
    const options = { ...ts.parseJsonConfigFileContent(config.config, ts.sys, root).options, noEmit: true };
    const host = ts.createCompilerHost(options);
    const getSourceFile = host.getSourceFile.bind(host);
    host.getSourceFile = (name, lang, ...rest) => {
      const text = virtual.get(path.resolve(name));
      return text !== undefined ? ts.createSourceFile(name, text, lang, true) : getSourceFile(name, lang, ...rest);
    };
    const fileExists = host.fileExists.bind(host);
    host.fileExists = (name) => virtual.has(path.resolve(name)) || fileExists(name);
    const directoryExists = host.directoryExists?.bind(host);
    host.directoryExists = (d) => path.resolve(d) === dir || (directoryExists ? directoryExists(d) : true);
    const readFile = host.readFile.bind(host);
    host.readFile = (name) => virtual.get(path.resolve(name)) ?? readFile(name);
    return new ErrorWalker(ts.createProgram([path.join(dir, entry)], options, host));
  }

  it.each(['passed.handler.ts', 'called.handler.ts'])(
    '%s: the use case’s code is found, so a route not listing it is caught',
    (entry) => {
      const walker = walkerOf(entry);
      const codes = walker.codesOfFile(path.join(dir, entry));
      expect([...codes]).toEqual(['report_busy']);
      expect(walker.where.get('report_busy')).toMatch(/__route_errors_fixture__\/use-case\.ts:2$/);
      // What the check above computes for a route whose list lacks it.
      const listed = new Set<string>(['report_not_found']);
      expect([...codes].filter((c) => !listed.has(c))).toEqual(['report_busy']);
    },
  );
});
