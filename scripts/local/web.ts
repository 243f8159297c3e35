import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { waitForPort } from './ports';
import { stopGroup, tail, track } from './process';

export const webConfig = (root: string) => path.join(root, 'web', 'vite.config.ts');

/**
 * The web app's Vite dev server (`vite --config web/vite.config.ts`) in its own process group.
 * It proxies /api to apiBaseUrl (env API_URL) and listens on 127.0.0.1:port (env WEB_PORT).
 */
export async function startWeb(opts: {
  root: string;
  port: number;
  apiBaseUrl: string;
  log?: (line: string) => void;
}): Promise<{ url: string; stop(): Promise<void> }> {
  const config = webConfig(opts.root);
  if (!existsSync(config)) throw new Error(`${config} does not exist`);
  // vite's package exports hide bin/: find the package, then its CLI.
  const vite = path.join(path.dirname(require.resolve('vite/package.json', { paths: [opts.root] })), 'bin', 'vite.js');
  const child = track(
    spawn(
      process.execPath,
      [vite, '--config', config, '--port', String(opts.port), '--strictPort', '--host', '127.0.0.1'],
      {
        cwd: opts.root,
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, WEB_PORT: String(opts.port), API_URL: opts.apiBaseUrl, FORCE_COLOR: '0' },
      },
    ),
    'the web server (Vite)',
  );
  const lastLines = tail(child);
  if (opts.log) {
    const log = opts.log;
    const forward = (c: Buffer) =>
      c
        .toString()
        .split('\n')
        .filter((l) => l.trim())
        .forEach(log);
    child.stdout?.on('data', forward);
    child.stderr?.on('data', forward);
  }
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code, signal) =>
      reject(new Error(`The web app (vite) exited (${signal ?? code}) while starting:\n${lastLines()}`)),
    ),
  );
  exited.catch(() => undefined);
  try {
    await Promise.race([waitForPort(opts.port, '127.0.0.1', 60_000), exited]);
  } catch (e) {
    await stopGroup(child, 1_000);
    throw e;
  }
  return { url: `http://localhost:${opts.port}`, stop: () => stopGroup(child) };
}
