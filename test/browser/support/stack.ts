/**
 * The whole local stack for one browser-test file: every service on a free port (a developer's
 * running `npm start` on 3000/5173 does not matter) and a fresh temporary data directory.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startStack, type Stack } from '../../../scripts/local/stack';

export interface TestStack extends Stack {
  /** The web app's origin (always started here). */
  web: string;
  /** The last lines the API and web servers printed, for failure messages. */
  logTail(): string;
}

export async function startTestStack(): Promise<TestStack> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'browser-stack-'));
  const lines: string[] = [];
  let stack: Stack;
  try {
    stack = await startStack({
      dataDir,
      freePorts: true,
      web: true,
      log: (source, line) => {
        // serverless-offline's route table is a box of many lines that says nothing about a failure.
        if (/^[│┌└]/.test(line)) return;
        lines.push(`[${source}] ${line}`);
        if (lines.length > 400) lines.splice(0, lines.length - 400);
      },
    });
  } catch (e) {
    rmSync(dataDir, { recursive: true, force: true });
    throw e;
  }
  const web = stack.urls.web;
  if (!web) throw new Error('startStack did not start the web app');
  return {
    ...stack,
    web,
    logTail: () => lines.slice(-40).join('\n'),
    stop: async () => {
      await stack.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
