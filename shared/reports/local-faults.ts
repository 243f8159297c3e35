/**
 * WORKER_FAULT (config.ts), honoured only on the local stage and wired by the composition (deps.ts):
 * a failing item store for the e2e suite, which cannot hand the worker inside serverless-offline a fake.
 * `rule;rule…`, each `fail_after_items=N[,times=K][,match=TEXT]`: a write of a report whose source
 * name contains TEXT writes its first N items and throws, K times per report (always without times).
 */
import type { writeItems } from '../store/items.repo';
import { getConfig } from '../config';
import { getReportAnyStatus } from '../store/reports.repo';

export interface Fault {
  failAfterItems: number;
  times: number;
  match: string;
}

/** Malformed rules are ignored. */
export function parseFaults(spec: string): Fault[] {
  const out: Fault[] = [];
  for (const rule of spec.split(';')) {
    if (!rule.trim()) continue;
    const parts = Object.fromEntries(
      rule.split(',').map((p) => {
        const [k, v = ''] = p.split('=');
        return [k!.trim(), v.trim()];
      }),
    );
    const n = Number(parts.fail_after_items);
    if (!Number.isInteger(n) || n < 0) continue;
    const times = parts.times === undefined ? Infinity : Number(parts.times);
    out.push({ failAfterItems: n, times: Number.isFinite(times) ? times : Infinity, match: parts.match ?? '' });
  }
  return out;
}

export class InjectedFault extends Error {
  constructor(written: number) {
    super(`injected worker fault after ${written} items`);
    this.name = 'InjectedFault';
  }
}

/** `items` whose writes fail as `spec` says (see the file comment). */
export function faultyWrites(items: { writeItems: typeof writeItems }): { writeItems: typeof writeItems } {
  const used = new Map<string, number>();
  return {
    async writeItems(userId, reportId, gen, list) {
      // Read at each write: the e2e stack and the integration tests set it per run.
      const faults = parseFaults(getConfig().WORKER_FAULT);
      if (faults.length === 0) return items.writeItems(userId, reportId, gen, list);
      const record = await getReportAnyStatus(userId, reportId);
      const fault = faults.find((f) => (record?.source_name ?? '').includes(f.match));
      const n = used.get(reportId) ?? 0;
      if (!fault || n >= fault.times) return items.writeItems(userId, reportId, gen, list);
      used.set(reportId, n + 1);
      const k = Math.min(fault.failAfterItems, list.length);
      // The same ids the full write gives these items: a later attempt overwrites them.
      await items.writeItems(userId, reportId, gen, list.slice(0, k));
      throw new InjectedFault(k);
    },
  };
}
