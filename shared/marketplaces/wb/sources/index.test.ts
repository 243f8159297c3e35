/**
 * The registry of cost sources (index.ts): every registered source is attributed by the engine, is a
 * money field of the report with its title, is a key of the contract's cost attribution, and its API is
 * served by the local emulator (its first call, over loopback, answers).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attributeCosts, ATTRIBUTED_FIELDS } from '../../../engine/attribution';
import { FIELD_BY_NAME, zeroAggregates } from '../../../engine/fields';
import { reportSchema } from '../../../contract/shapes';
import { startWbEmulator, type WbEmulator } from '../../../../scripts/local/wb-emulator';
import { decodeWbToken } from '../token';
import { COST_KINDS } from './cost-kinds';
import { COST_SOURCES, costSources, type WbCostSettings } from '.';

let emu: WbEmulator;
const clock = Date.parse('2026-02-02T09:00:00Z');

beforeAll(async () => {
  emu = await startWbEmulator({ port: 0, now: () => clock, weeks: 1, seed: 3, firstMonday: '2026-01-05' });
});
afterAll(() => emu.close());

const settings = (): WbCostSettings => ({
  advertApiUrl: emu.url,
  advertCallIntervalMs: 20_000,
  analyticsApiUrl: emu.url,
  callIntervalMs: 60_000,
  financeApiUrl: emu.url,
});

describe('COST_SOURCES', () => {
  it('registers each cost kind once, in the order of the one list of kinds', () => {
    expect(COST_SOURCES.map((e) => e.kind)).toEqual(COST_KINDS.map((k) => k.kind));
    expect(ATTRIBUTED_FIELDS).toEqual(COST_SOURCES.map((e) => e.field));
    // The report worker reads a period's stored costs under the field's name (docs/WB-API.md «Adding a cost source»).
    for (const e of COST_SOURCES) expect(e.kind).toBe(e.field);
  });

  it('makes each source with its registered kind, a unique id and a unique budget', () => {
    const sources = costSources(settings);
    expect(sources.map((s) => s.kind)).toEqual(COST_SOURCES.map((e) => e.kind));
    expect(new Set(sources.map((s) => s.id)).size).toBe(sources.length);
    expect(new Set(sources.map((s) => s.api)).size).toBe(sources.length);
    // Behaviour kept: the ids and budgets the stored jobs and WB accounts already use.
    expect(sources.map((s) => [s.id, s.api])).toEqual([
      ['advert', 'advert'],
      ['storage', 'paid_storage'],
      ['acceptance', 'acceptance'],
      ['acquiring', 'acquiring'],
    ]);
  });

  it.each(COST_SOURCES.map((e) => [e.kind, e] as const))('%s is a money field of the report with its title', (_, e) => {
    const def = FIELD_BY_NAME.get(e.field);
    expect(def).toMatchObject({ unit: 'money', title: e.title });
  });

  it.each(COST_SOURCES.map((e) => [e.kind, e] as const))('%s is attributed onto the report articles', (_, e) => {
    const article = (name: string, nm: string, v: number) => ({
      article: name,
      category: '',
      nm_id: nm,
      brand: '',
      aggregates: { ...zeroAggregates(), [e.field]: v },
    });
    const out = attributeCosts([article('A', '101', 0), article('', '', 1000)], {
      [e.field]: { byNm: { '101': 300 }, days: 7 },
    });
    expect(out.articles[0]!.aggregates[e.field]).toBe(300);
    expect(out.articles[1]!.aggregates[e.field]).toBe(700);
    expect(out.summary[e.field]).toMatchObject({ report: 1000, api: 300, attributed: 300, remainder: 700 });
  });

  it.each(COST_SOURCES.map((e) => [e.kind, e] as const))('%s is a key of the contract cost attribution', (_, e) => {
    // The record inside the field's optional/nullable wrappers: its key enum.
    let schema: unknown = reportSchema.shape.cost_attribution;
    while (schema && typeof schema === 'object' && !('keyType' in schema) && 'unwrap' in schema)
      schema = (schema as { unwrap: () => unknown }).unwrap();
    expect((schema as { keyType: { options: string[] } }).keyType.options).toContain(e.field);
  });

  it.each(COST_SOURCES.map((e) => [e.kind, e] as const))('%s: the emulator serves its first call', async (_, e) => {
    const source = e.source(settings);
    const token = Object.values(emu.tokens).find((t) => {
      try {
        const info = decodeWbToken(t);
        return info.scopes.includes(source.scopeName) && info.exp * 1000 > clock;
      } catch {
        return false;
      }
    });
    expect(token).toBeDefined();
    const state = source.first('2026-01-05', '2026-01-11');
    expect(state.call).not.toBeNull();
    const outcome = await source.call(source.client(token!), state);
    expect(['ok', 'empty']).toContain(outcome.kind);
  });
});
