/** Why WB's balance is not read, per connection, as the cash flow says it (cashflow.ts balanceStatus). */
import { describe, expect, it } from 'vitest';
import type { WbConnectionRecord } from '../store/wb-connections.repo';
import { balanceStatus } from './cashflow';

const conn = (over: Partial<WbConnectionRecord>): WbConnectionRecord =>
  ({
    id: 'C',
    seller_id: 'S1',
    wb_seller_id: '4242',
    seller_name: 'ИП Тест',
    status: 'active',
    cursor: { phase: 'idle' },
    error: null,
    ...over,
  }) as WbConnectionRecord;

const read = { next_at: 0, last_call_at: 0, failures: 0, read_at: '2026-04-01T09:00:00.000Z', error: null };

describe('balanceStatus', () => {
  it('no connection: not connected, uploads alone still count', () => {
    expect(balanceStatus([])).toEqual({
      connected: 0,
      notes: [
        {
          wb_seller_id: null,
          code: 'wb_not_connected',
          message: expect.stringContaining('Выплаты и движение денег считаются по загруженным отчётам'),
          at: null,
        },
      ],
    });
  });

  it('read: no note; not read yet: pending; refused: WB’s reason with its time; stopped: the connection’s error', () => {
    const refused = {
      ...read,
      error: {
        code: 'wb_balance_rate_limited' as const,
        message: 'WB попросил подождать с запросом баланса (429).',
        at: '2026-04-01T10:00:00.000Z',
        wb_status: 429,
      },
    };
    const s = balanceStatus([
      conn({ id: 'a', wb_seller_id: '1', balance: read }),
      conn({ id: 'b', wb_seller_id: '2' }),
      conn({ id: 'c', wb_seller_id: '3', balance: refused }),
      conn({
        id: 'd',
        wb_seller_id: '4',
        status: 'token_invalid',
        error: { code: 'wb_token_invalid', message: 'WB больше не принимает токен' },
      }),
    ]);
    expect(s.connected).toBe(4);
    expect(s.notes.map((n) => [n.wb_seller_id, n.code, n.at])).toEqual([
      ['2', 'wb_balance_pending', null],
      ['3', 'wb_balance_rate_limited', '2026-04-01T10:00:00.000Z'],
      ['4', 'wb_connection_stopped', null],
    ]);
    expect(s.notes[1]!.message).toBe('WB «ИП Тест» (3): WB попросил подождать с запросом баланса (429).');
    expect(s.notes[2]!.message).toMatch(/остановлено \(WB больше не принимает токен\): баланс не читается/);
  });

  it('for one seller: its connections only', () => {
    const s = balanceStatus(
      [conn({ seller_id: 'S1', balance: read }), conn({ seller_id: 'S2', wb_seller_id: '9' })],
      'S1',
    );
    expect(s).toEqual({ connected: 1, notes: [] });
    expect(balanceStatus([conn({ seller_id: 'S2' })], 'S1').notes[0]!.code).toBe('wb_not_connected');
  });
});
