import { describe, expect, it } from 'vitest';
import { MemoryObjectStore } from '../../devkit/fakes/memoryObjectStore.ts';
import { activeParquetBytes } from '../../lib/archive/active/activeParquet.ts';
import type { ActiveRow } from '../../lib/archive/active/activeRow.ts';
import type { ObjectInfo, ObjectStore } from '../../lib/archive/store/objectStore.ts';
import { addDays, dayRange, toDay } from '../../lib/foundation/clock/day.ts';
import { countLostSessions } from '../../lib/integrity/verify/countLostSessions.ts';

const NOW = new Date('2026-11-20T06:00:00.000Z');
const DAY = 86_400_000;

function goneRow(start: Date, observed: Date): ActiveRow {
  return {
    row_id: '0'.repeat(32),
    observed_at: observed,
    event: 'gone',
    id: 'session-1',
    user_id: 1,
    token_id: 2,
    token: null,
    token_hmac: 'a'.repeat(64),
    token_name: null,
    virtual_token: null,
    virtual_token_hmac: null,
    virtual_token_name: null,
    subdomain: 'sub',
    customdomain: null,
    mode: 'http',
    mode_udp: 'off',
    port: 80,
    creation_time: start,
    last_update_time: observed,
    extra_json: null,
    join_token_hmac: 'a'.repeat(64),
  };
}

/**
 * An archive `ageDays` old: a history partition a day (but on the lost session's start day), and one
 * session gone in the window that no history row matches. The store counts the keys its listings yield.
 */
async function archiveOf(ageDays: number): Promise<{ objects: ObjectStore; listed: () => number }> {
  const store = new MemoryObjectStore({ pageSize: 100 });
  const start = new Date(NOW.getTime() - 20 * DAY);
  const observed = new Date(NOW.getTime() - 5 * DAY);
  await store.put(
    `active/dt=${toDay(observed)}/a.parquet`,
    await activeParquetBytes([goneRow(start, observed)]),
  );
  for (const day of dayRange(addDays(toDay(NOW), -ageDays), addDays(toDay(NOW), -1))) {
    if (day !== toDay(start)) await store.put(`history/dt=${day}/part-0.parquet`, 'not read');
  }
  let listed = 0;
  async function* list(prefix: string): AsyncGenerator<ObjectInfo> {
    for await (const o of store.list(prefix)) {
      listed++;
      yield o;
    }
  }
  const objects = new Proxy(store, {
    get: (target, name) => {
      if (name === 'list') return list;
      const value = Reflect.get(target, name);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  }) as ObjectStore;
  return { objects, listed: () => listed };
}

describe('countLostSessions in the weekly verify', () => {
  it('counts the same loss and lists the same keys at nine weeks as at two years', async () => {
    const counted = async (ageDays: number) => {
      const a = await archiveOf(ageDays);
      const lost = await countLostSessions(a.objects, {
        windowDays: 60,
        now: NOW,
        activeSince: addDays(toDay(NOW), -61),
      });
      return { lost, listed: a.listed() };
    };
    const young = await counted(63);
    const old = await counted(730);
    expect(young.lost).toBe(1);
    expect(old).toEqual(young);
  });

  it('does not count a session that started before the oldest history partition', async () => {
    const a = await archiveOf(10);
    expect(
      await countLostSessions(a.objects, { windowDays: 60, now: NOW, activeSince: addDays(toDay(NOW), -61) }),
    ).toBe(0);
  });
});
