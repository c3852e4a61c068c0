import { describe, expect, it } from 'vitest';
import type { ActiveEvent } from '../../lib/archive/active/activeRow.ts';
import type { ActiveObservations } from '../../lib/archive/active/activeState.ts';
import { diffSnapshot, snapshotGap } from '../../lib/archive/active/diffSnapshot.ts';
import type { ActiveSession } from '../../lib/archive/records/schemas.ts';
import { tokenHmac } from '../../lib/archive/records/tokenHmac.ts';
import { session, TOKEN_KEY } from './activeKit.ts';

const T0 = new Date('2025-03-01T12:00:00.000Z');
const FIVE_MIN = 5 * 60_000;
const opts = { tokenPolicy: 'hash' as const, tokenKey: TOKEN_KEY, scheduleMs: FIVE_MIN };
const EMPTY: ActiveObservations = { sessions: {} };

/** Runs snapshots in order (5 minutes apart) and returns the events of the last one. */
function eventsAfter(snapshots: ActiveSession[][]): [ActiveEvent, string][] {
  let state = EMPTY;
  let events: [ActiveEvent, string][] = [];
  snapshots.forEach((snapshot, i) => {
    const out = diffSnapshot(state, snapshot, new Date(T0.getTime() + i * FIVE_MIN), opts);
    state = out.next;
    events = out.rows.map((r) => [r.event, r.id]);
  });
  return events;
}

describe('diffSnapshot', () => {
  it.each<[string, ActiveSession[][], [ActiveEvent, string][]]>([
    ['first observation of an id is seen', [[session('a')]], [['seen', 'a']]],
    ['an unchanged session writes nothing', [[session('a')], [session('a')]], []],
    ['an id no longer listed is gone', [[session('a'), session('b')], [session('b')]], [['gone', 'a']]],
    [
      'a changed name is changed',
      [[session('a')], [session('a', { virtualTokenName: 'renamed' })]],
      [['changed', 'a']],
    ],
    [
      'a lastUpdateTimestamp-only move counts as changed',
      [[session('a')], [session('a', { lastUpdateTimestamp: '2024-08-23T05:00:00Z' })]],
      [['changed', 'a']],
    ],
    [
      'the same instant spelt differently is no change',
      [[session('a')], [session('a', { creationTimestamp: '2024-08-23T04:04:36.083Z' })]],
      [],
    ],
    [
      'an unknown new field is a change',
      [[session('a')], [session('a', { region: 'eu' })]],
      [['changed', 'a']],
    ],
    [
      'order of the list does not matter',
      [
        [session('a'), session('b')],
        [session('b'), session('a')],
      ],
      [],
    ],
    [
      'seen, changed and gone together, sorted by event then id',
      [
        [session('b'), session('c')],
        [session('c', { port: 1 }), session('a')],
      ],
      [
        ['seen', 'a'],
        ['changed', 'c'],
        ['gone', 'b'],
      ],
    ],
    ['an id that comes back after gone is seen again', [[session('a')], [], [session('a')]], [['seen', 'a']]],
  ])('%s', (_name, snapshots, expected) => {
    expect(eventsAfter(snapshots)).toEqual(expected);
  });

  it('derives the same rows and row ids from the same inputs (what makes a re-run harmless)', () => {
    const prev = diffSnapshot(EMPTY, [session('a'), session('b')], T0, opts).next;
    const snap = [session('a', { port: 2 }), session('c')];
    const first = diffSnapshot(prev, snap, new Date(T0.getTime() + FIVE_MIN), opts);
    const again = diffSnapshot(prev, snap, new Date(T0.getTime() + 2 * FIVE_MIN), opts);
    expect(again.rows.map((r) => r.row_id)).toEqual(first.rows.map((r) => r.row_id));
    expect(first.rows[0]?.row_id).toMatch(/^[0-9a-f]{32}$/);
  });

  it('gives A→B→A→B flips distinct row ids', () => {
    const snapshots = [
      [session('a')],
      [session('a', { port: 2 })],
      [session('a')],
      [session('a', { port: 2 })],
    ];
    let state = EMPTY;
    const ids: string[] = [];
    snapshots.forEach((snap, i) => {
      const out = diffSnapshot(state, snap, new Date(T0.getTime() + i * FIVE_MIN), opts);
      state = out.next;
      ids.push(...out.rows.map((r) => r.row_id));
    });
    expect(new Set(ids).size).toBe(4);
  });

  it('an id listed again after gone gets fresh row ids; after a day its tombstone is dropped', () => {
    const t = (min: number) => new Date(T0.getTime() + min * 60_000);
    const first = diffSnapshot(EMPTY, [session('a')], t(0), opts);
    const gone = diffSnapshot(first.next, [], t(5), opts);
    expect(gone.next.closed).toEqual({ a: { seq: 2, goneAt: t(5).toISOString() } });
    const back = diffSnapshot(gone.next, [session('a')], t(10), opts);
    expect(back.rows.map((r) => r.event)).toEqual(['seen']);
    expect(back.rows[0]?.row_id).not.toBe(first.rows[0]?.row_id);
    expect(back.next.closed).toEqual({});
    expect(back.next.sessions.a?.seq).toBe(3);
    const dayLater = diffSnapshot(gone.next, [], t(5 + 24 * 60 + 1), opts);
    expect(dayLater.next.closed).toEqual({});
  });

  it('a gone row repeats the last observed fields', () => {
    const prev = diffSnapshot(EMPTY, [session('a', { port: 7 })], T0, opts).next;
    const [gone] = diffSnapshot(prev, [], new Date(T0.getTime() + FIVE_MIN), opts).rows;
    expect(gone).toMatchObject({ event: 'gone', id: 'a', port: 7, virtual_token_name: 'name-a' });
    expect(gone?.creation_time).toEqual(new Date('2024-08-23T04:04:36.083Z'));
  });

  it.each([
    ['keep', 'vt-a', tokenHmac(TOKEN_KEY, 'vt-a')],
    ['hash', null, tokenHmac(TOKEN_KEY, 'vt-a')],
    ['drop', null, null],
  ] as const)('token policy %s: raw %s, hash %s', (tokenPolicy, raw, hash) => {
    const [row] = diffSnapshot(EMPTY, [session('a')], T0, { ...opts, tokenPolicy }).rows;
    expect(row?.virtual_token).toBe(raw);
    expect(row?.virtual_token_hmac).toBe(hash);
    expect(row?.virtual_token_name).toBe('name-a');
  });

  it('reports ids the list holds twice', () => {
    const out = diffSnapshot(EMPTY, [session('a'), session('a', { port: 9 })], T0, opts);
    expect(out.duplicateIds).toEqual(['a']);
    expect(out.rows).toHaveLength(1);
    expect(out.rows[0]?.port).toBe(9);
  });

  it('records a gap longer than twice the schedule', () => {
    const prev = diffSnapshot(EMPTY, [], T0, opts).next;
    const later = new Date(T0.getTime() + 2 * FIVE_MIN + 1);
    expect(diffSnapshot(prev, [], later, opts).gap).toEqual({
      from: T0.toISOString(),
      to: later.toISOString(),
      ms: 2 * FIVE_MIN + 1,
    });
  });
});

describe('snapshotGap', () => {
  it.each([
    [undefined, 60 * FIVE_MIN, false],
    [T0.toISOString(), 2 * FIVE_MIN, false],
    [T0.toISOString(), 2 * FIVE_MIN + 1, true],
  ])('last %s, after %d ms: gap %s', (last, after, isGap) => {
    expect(snapshotGap(last, new Date(T0.getTime() + after), FIVE_MIN) !== undefined).toBe(isGap);
  });
});
