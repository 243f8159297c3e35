/**
 * The command line of a script that writes files generated from the code (`npm run openapi`,
 * `npm run serverless:generate`): without options it writes each file; `--check` writes nothing and
 * exits 1 naming the first file that differs from what would be written; `--help` prints the usage;
 * anything else exits 2.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface GeneratedFile {
  path: string;
  /** The file's content from its current text ('' when it does not exist yet). */
  render(current: string): string;
  /** What `--check` says when it differs; what is printed after writing it. */
  stale: string;
  wrote: string;
}

function read(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return ''; // missing: out of date
  }
}

export function runGenerator(
  usage: string,
  files: readonly GeneratedFile[],
  current: string,
  argv = process.argv.slice(2),
): void {
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(usage);
  } else if (argv.some((a) => a !== '--check')) {
    console.error(`Unknown option: ${argv.find((a) => a !== '--check')}\n\n${usage}`);
    process.exit(2);
  } else if (argv.includes('--check')) {
    for (const f of files) {
      const text = read(f.path);
      if (text !== f.render(text)) {
        console.error(f.stale);
        process.exit(1);
      }
    }
    console.log(current);
  } else {
    for (const f of files) {
      writeFileSync(f.path, f.render(read(f.path)));
      console.log(f.wrote.replace('%s', path.relative(process.cwd(), f.path)));
    }
  }
}
