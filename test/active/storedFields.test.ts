import { describe, expect, it } from 'vitest';
import { diffSnapshot } from '../../lib/archive/active/diffSnapshot.ts';
import { fromPendingRow, toPendingRow } from '../../lib/archive/active/storedFields.ts';
import { session, TOKEN_KEY } from './activeKit.ts';

const T0 = new Date('2025-03-01T12:00:00.000Z');
const OPTS = { tokenPolicy: 'keep' as const, tokenKey: TOKEN_KEY, scheduleMs: 300_000 };

describe('toPendingRow / fromPendingRow', () => {
  const first = diffSnapshot({ sessions: {} }, [session('a'), session('b')], T0, OPTS);
  const second = diffSnapshot(
    first.next,
    [session('a', { port: 1 })],
    new Date(T0.getTime() + 300_000),
    OPTS,
  );

  it('restores seen/changed rows from the sessions of the same item and gone rows from their own fields', () => {
    for (const { rows, next } of [first, second]) {
      const pending = rows.map(toPendingRow);
      expect(pending.filter((p) => p.fields !== undefined).map((p) => p.event)).toEqual(
        rows.filter((r) => r.event === 'gone').map((r) => r.event),
      );
      expect(pending.map((p) => fromPendingRow(p, next.sessions))).toEqual(rows);
    }
  });

  it('refuses a seen row whose session is not in the item (INTERNAL)', () => {
    const [row] = first.rows.map(toPendingRow);
    expect(() => fromPendingRow(row as never, {})).toThrow(expect.objectContaining({ code: 'INTERNAL' }));
  });
});
