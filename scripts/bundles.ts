/**
 * `npm run bundles`: builds every function of serverless.yml with esbuild, with the settings
 * serverless-esbuild uses (serverless.yml `custom.esbuild`), metafile on, and prints one row per
 * function: bytes minified, bytes gzipped, the heaviest inputs. docs/PERFORMANCE.md, Bundles.
 *
 *   npm run bundles                 the table
 *   npm run bundles -- --init       also loads each bundle in a fresh node process and prints its init time
 *   npm run bundles -- --json       the rows as JSON (for comparing runs)
 *   npm run bundles -- --no-sdk     the AWS SDK left out (as Lambda's runtime copy once was), to compare with older sizes
 *
 * scripts/bundles.test.ts builds the same bundles and refuses a module a function must not carry.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { build, type BuildOptions, type Metafile } from 'esbuild';

const root = path.resolve(__dirname, '..');

/** One function of serverless.yml: its name and its entry file (`functions/reports/get.handler.ts`). */
export interface FunctionEntry {
  name: string;
  entry: string;
}

interface EsbuildSettings {
  bundle?: boolean;
  minify?: boolean;
  sourcemap?: boolean | 'linked' | 'external' | 'inline' | 'both';
  keepNames?: boolean;
  sourcesContent?: boolean;
  format?: 'cjs' | 'esm';
  target?: string;
  platform?: 'node';
  exclude?: string[];
}

interface Statement {
  Action?: string | string[];
}

interface ServerlessFile {
  custom: { esbuild: EsbuildSettings };
  functions: Record<string, { handler: string; role?: string }>;
  resources?: {
    Resources?: Record<
      string,
      { Type: string; Properties?: { Policies?: Array<{ PolicyDocument: { Statement: Statement[] } }> } }
    >;
  };
}

function readServerless(): ServerlessFile {
  // Read as osls reads it (its js-yaml); the ${...} variables stay text: only the function list and
  // custom.esbuild are used.
  const yaml = createRequire(require.resolve('osls/package.json'))('js-yaml') as { load(text: string): unknown };
  return yaml.load(readFileSync(path.join(root, 'serverless.yml'), 'utf8')) as ServerlessFile;
}

/** Every function of serverless.yml with the TypeScript file its handler string names. */
export function functionEntries(): FunctionEntry[] {
  return Object.entries(readServerless().functions).map(([name, f]) => {
    // `functions/reports/get.handler.handler` → functions/reports/get.handler.ts
    const file = f.handler.slice(0, f.handler.lastIndexOf('.'));
    return { name, entry: `${file}.ts` };
  });
}

/**
 * The IAM actions of each function's role (serverless.yml `resources`), e.g. `s3:GetObject`: what the
 * function may call, so which AWS SDK clients it has any use for.
 */
export function roleActions(): Map<string, Set<string>> {
  const file = readServerless();
  const resources = file.resources?.Resources ?? {};
  const out = new Map<string, Set<string>>();
  for (const [name, f] of Object.entries(file.functions)) {
    const actions = new Set<string>();
    for (const policy of (f.role ? resources[f.role]?.Properties?.Policies : undefined) ?? [])
      for (const st of policy.PolicyDocument.Statement)
        for (const a of Array.isArray(st.Action) ? st.Action : st.Action ? [st.Action] : []) actions.add(a);
    out.set(name, actions);
  }
  return out;
}

/** serverless.yml `custom.esbuild` as esbuild options (serverless-esbuild passes them on the same way). */
export function esbuildOptions(): BuildOptions {
  const s = readServerless().custom.esbuild;
  return {
    bundle: s.bundle ?? true,
    minify: s.minify ?? false,
    sourcemap: s.sourcemap ?? false,
    keepNames: s.keepNames ?? false,
    sourcesContent: s.sourcesContent ?? true,
    format: s.format ?? 'cjs',
    target: s.target ?? 'node24',
    platform: s.platform ?? 'node',
    external: s.exclude ?? [],
  };
}

export interface Bundle extends FunctionEntry {
  /** The bundle's JavaScript (the .js file the zip holds; the source map aside). */
  code: Buffer;
  bytes: number;
  gzipBytes: number;
  /** The package (or `shared/…`/`functions/…` folder) of each input, with the bytes it adds to the bundle. */
  inputs: Array<{ module: string; bytes: number }>;
  /** Every module the bundle requires at run time and does not hold (externals, e.g. `@aws-sdk/client-s3`). */
  externals: string[];
  /** Every input file with bytes in the bundle (paths relative to the repository). */
  files: string[];
  outFile: string;
}

/** `node_modules/@aws-sdk/client-s3/dist-cjs/index.js` → `@aws-sdk/client-s3`; `shared/engine/x.ts` → `shared/engine`. */
export function moduleOf(input: string): string {
  const nm = input.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const parts = input.slice(nm + 'node_modules/'.length).split('/');
    return parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
  }
  return path.posix.dirname(input);
}

/** Builds every function (or those given) into `outDir` (a temporary folder when none). */
export async function buildBundles(
  only?: readonly FunctionEntry[],
  outDir?: string,
  extraExternal: readonly string[] = [],
): Promise<Bundle[]> {
  const base = esbuildOptions();
  const options = { ...base, external: [...(base.external ?? []), ...extraExternal] };
  const dir = outDir ?? mkdtempSync(path.join(os.tmpdir(), 'bundles-'));
  // One esbuild service builds them all at once (it runs the builds on its own threads).
  return Promise.all((only ?? functionEntries()).map((fn) => buildOne(fn, options, dir)));
}

async function buildOne(fn: FunctionEntry, options: BuildOptions, dir: string): Promise<Bundle> {
  const outFile = path.join(dir, fn.entry.replace(/\.ts$/, '.js'));
  const result = await build({
    ...options,
    absWorkingDir: root,
    entryPoints: [fn.entry],
    outfile: outFile,
    metafile: true,
    logLevel: 'silent',
  });
  const meta: Metafile = result.metafile;
  const output = Object.entries(meta.outputs).find(([file]) => file.endsWith('.js'))![1];
  const code = readFileSync(outFile);
  const byModule = new Map<string, number>();
  for (const [file, info] of Object.entries(output.inputs)) {
    // Inputs tree-shaken to nothing are listed with 0 bytes: they are not in the bundle.
    if (info.bytesInOutput === 0) continue;
    byModule.set(moduleOf(file), (byModule.get(moduleOf(file)) ?? 0) + info.bytesInOutput);
  }
  return {
    ...fn,
    code,
    bytes: code.length,
    gzipBytes: gzipSync(code).length,
    inputs: [...byModule].map(([module, bytes]) => ({ module, bytes })).sort((a, b) => b.bytes - a.bytes),
    externals: [...new Set(output.imports.filter((i) => i.external).map((i) => i.path))].sort(),
    files: Object.entries(output.inputs)
      .filter(([, info]) => info.bytesInOutput > 0)
      .map(([file]) => file),
    outFile,
  };
}

/**
 * Milliseconds a fresh node process spends requiring the bundle (what a cold start adds to the
 * runtime's own start), the median of `runs`. Needs the externals (AWS SDK) resolvable from the bundle's folder:
 * NODE_PATH points at this repository's node_modules.
 */
export function initMs(bundle: Bundle, runs = 3): number {
  const script =
    'const t=process.hrtime.bigint();require(process.argv[1]);' +
    'process.stdout.write(String(Number(process.hrtime.bigint()-t)/1e6));process.exit(0)';
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const r = spawnSync(process.execPath, ['-e', script, bundle.outFile], {
      encoding: 'utf8',
      env: {
        ...process.env,
        NODE_PATH: path.join(root, 'node_modules'),
        // What serverless.yml gives every function: the handlers read their settings at load.
        AWS_REGION: 'eu-central-1',
        STAGE: 'bundles',
        JWT_SECRET: 'bundles-init-time-secret-bundles-init',
        TABLE_NAME: 't',
        BUCKET_NAME: 'bundles-bucket',
        MAIL_FROM: 'noreply@example.com',
        APP_URL: 'http://localhost:5173',
      },
    });
    if (r.status !== 0) throw new Error(`${bundle.name}: require failed\n${r.stderr}`);
    times.push(Number(r.stdout));
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
}

const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const withInit = args.includes('--init');
  // `--no-sdk`: the AWS SDK left out, to compare with sizes measured before it was bundled.
  const bundles = await buildBundles(undefined, undefined, args.includes('--no-sdk') ? ['@aws-sdk/*'] : []);
  const rows = bundles.map((b) => ({
    function: b.name,
    bytes: b.bytes,
    gzip: b.gzipBytes,
    ...(withInit ? { init_ms: Math.round(initMs(b) * 10) / 10 } : {}),
    heaviest: b.inputs.slice(0, 4).map((i) => `${i.module} ${kb(i.bytes)}`),
  }));
  if (args.includes('--json')) {
    process.stdout.write(JSON.stringify(rows, null, 2) + '\n');
    return;
  }
  const o = esbuildOptions();
  console.log(
    `esbuild ${o.format} ${o.target}, minify ${o.minify}, sourcemap ${String(o.sourcemap)}; externals: ${(o.external ?? []).join(', ')}`,
  );
  console.log('');
  const head = ['function', 'bytes', 'gzip', ...(withInit ? ['init ms'] : []), 'heaviest inputs'];
  const lines = rows.map((r) => [
    r.function,
    String(r.bytes),
    String(r.gzip),
    ...(withInit ? [String(r.init_ms)] : []),
    r.heaviest.join(', '),
  ]);
  const widths = head.map((h, i) =>
    Math.max(h.length, ...lines.map((l) => (i === head.length - 1 ? 0 : l[i]!.length))),
  );
  const fmt = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join('  ');
  console.log(fmt(head));
  for (const l of lines) console.log(fmt(l));
  const total = rows.reduce((s, r) => s + r.bytes, 0);
  console.log('');
  console.log(`${rows.length} functions, ${kb(total)} in all`);
}

if (require.main === module) {
  main().catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
}
