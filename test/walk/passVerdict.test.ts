import { describe, expect, it } from 'vitest';
import { BARREN_PASSES } from '../../lib/archive/config/walkLimits.ts';
import { type PassEvidence, passVerdict } from '../../lib/archive/walk/passVerdict.ts';
import { STALLED_PASSES } from '../../lib/archive/walk/walkDay.ts';

/** A first pass over a 95-row day at 10 rows a page, whose short page 9 holds 5 rows; `e` changes it. */
function evidence(e: Partial<PassEvidence> = {}): PassEvidence {
  return {
    totals: [95],
    passTotals: [95],
    totalBefore: 0,
    open: false,
    observedBefore: 0,
    shortPages: [{ page: 9, length: 5 }],
    size: 10,
    collected: 95,
    passStart: 0,
    pass: 1,
    stalledBefore: 0,
    maxPasses: 30,
    ...e,
  };
}

/** A live day's second pass: 90 rows before it, 95 when it began, 101 by its last page; the walk holds 98. */
const LIVE_PASS: Partial<PassEvidence> = {
  open: true,
  totals: [90, 95, 101],
  passTotals: [95, 101],
  totalBefore: 90,
  collected: 98,
  passStart: 80,
  pass: 2,
};

describe('passVerdict: the day’s completeness rules', () => {
  it.each([
    {
      name: 'every row the total and the short page promise: complete, ends',
      e: {},
      v: { complete: true, ends: true, observed: 95, shortfall: 0, stalled: 0, unreliableTotals: false },
    },
    {
      name: 'rows short of the total: not complete, goes on',
      e: { collected: 90 },
      v: { complete: false, ends: false, shortfall: 5, stalled: 0 },
    },
    {
      name: 'rows beyond the total (a lagging count): unreliable, a first pass cannot prove it',
      e: { totals: [88] },
      v: { complete: false, ends: false, unreliableTotals: true, shortfall: 0 },
    },
    {
      name: 'a lagging count, and a later pass that added nothing: complete',
      e: { totals: [88], pass: 2, passStart: 95 },
      v: { complete: true, ends: true, unreliableTotals: true, added: 0 },
    },
    {
      name: 'a lagging count, and a later pass that still added rows: goes on',
      e: { totals: [88], pass: 2, passStart: 94 },
      v: { complete: false, ends: false, added: 1 },
    },
    {
      name: 'two totals seen: unreliable even when the rows match the higher',
      e: { totals: [90, 95] },
      v: { unreliableTotals: true, complete: false },
    },
    {
      name: 'the short page proves more rows than the total: the rows it proves are owed',
      e: { totals: [80], shortPages: [{ page: 9, length: 8 }], collected: 95 },
      v: { observed: 98, shortfall: 3, complete: false, stalled: 0 },
    },
    {
      name: 'only the first short page proves rows: an empty page fetched past it proves nothing',
      e: {
        totals: [125],
        shortPages: [
          { page: 12, length: 0 },
          { page: 9, length: 5 },
          { page: 10, length: 0 },
        ],
        passStart: 95,
        pass: 2,
        stalledBefore: 1,
      },
      v: { observed: 95, stalled: 2, complete: false, ends: false, shortfall: 30 },
    },
    {
      name: 'a count stuck above the rows the pages prove: stalls, and ends at STALLED_PASSES',
      e: { totals: [125], passStart: 95, pass: 6, stalledBefore: STALLED_PASSES - 1 },
      v: { stalled: STALLED_PASSES, complete: false, ends: true, shortfall: 30 },
    },
    {
      name: 'a pass that added nothing while the short page proves more: never a stall',
      e: { totals: [125], observedBefore: 100, passStart: 95, pass: 2, stalledBefore: 3 },
      v: { stalled: 0, ends: false, observed: 100 },
    },
    {
      name: 'a pass that added nothing short of the rows the pages prove: barren, goes on before BARREN_PASSES',
      e: { totals: [125], observedBefore: 100, passStart: 95, pass: 9, barrenBefore: BARREN_PASSES - 2 },
      v: { stalled: 0, barren: BARREN_PASSES - 1, complete: false, ends: false, shortfall: 30 },
    },
    {
      name: 'barren BARREN_PASSES times in a row, whatever the walk lacks: ends, short',
      e: { totals: [125], observedBefore: 100, passStart: 95, pass: 11, barrenBefore: BARREN_PASSES - 1 },
      v: { stalled: 0, barren: BARREN_PASSES, complete: false, ends: true, shortfall: 30 },
    },
    {
      name: 'a pass that added a row ends the barren streak',
      e: { totals: [125], observedBefore: 100, passStart: 94, pass: 11, barrenBefore: BARREN_PASSES - 1 },
      v: { barren: 0, ends: false },
    },
    {
      name: 'the last pass allowed: ends, not complete',
      e: { collected: 90, pass: 30 },
      v: { complete: false, ends: true },
    },
    {
      name: 'an empty day (an empty first page): complete',
      e: { totals: [0], shortPages: [{ page: 0, length: 0 }], collected: 0 },
      v: { complete: true, ends: true, observed: 0, shortfall: 0 },
    },
    {
      name: 'rows proved by an earlier pass stay owed',
      e: { observedBefore: 99, collected: 95 },
      v: { observed: 99, shortfall: 4, complete: false },
    },
    // A live day: 95 rows when the pass began, 101 by its last page; the walk holds the 95 and 3 more.
    {
      name: 'an open day grown during the pass, every row of its start held: caught up, ends, not complete',
      e: LIVE_PASS,
      v: { caughtUp: true, complete: false, ends: true, shortfall: 3, unreliableTotals: true },
    },
    {
      name: 'the same evidence of a closed day: the count moved, so the walk goes on',
      e: { ...LIVE_PASS, open: false },
      v: { caughtUp: false, complete: false, ends: false },
    },
    {
      name: 'an open day short of the rows that existed at the pass start: goes on',
      e: { ...LIVE_PASS, collected: 94 },
      v: { caughtUp: false, ends: false },
    },
    {
      name: 'an open day whose total went down between passes: a count that lies, not a live day; goes on',
      e: { ...LIVE_PASS, totals: [99, 95, 101], totalBefore: 99 },
      v: { caughtUp: false, ends: false },
    },
    {
      name: 'an open day holding more rows than any total: a count that lags, not a live day; goes on',
      e: {
        open: true,
        totals: [90],
        passTotals: [90],
        totalBefore: 0,
        collected: 95,
        shortPages: [{ page: 9, length: 5 }],
      },
      v: { caughtUp: false, ends: false, unreliableTotals: true },
    },
    {
      name: 'an open day whose short page proves rows the walk lacks: goes on for them',
      e: {
        open: true,
        totals: [95, 101],
        passTotals: [95, 101],
        totalBefore: 0,
        collected: 97,
        observedBefore: 99,
      },
      v: { caughtUp: false, ends: false, observed: 99 },
    },
    {
      name: 'an open day proved complete: complete, not merely caught up',
      e: { open: true },
      v: { complete: true, caughtUp: false, ends: true },
    },
  ])('$name', ({ e, v }) => {
    expect(passVerdict(evidence(e))).toMatchObject(v);
  });
});

describe('passVerdict: a server that holds rows twice', () => {
  /** A later pass over the 95-row day whose walk holds 94 distinct records and added none of them. */
  const twice = (e: Partial<PassEvidence> = {}): PassEvidence =>
    evidence({ collected: 94, passStart: 94, pass: 3, ...e });
  const served = (distinct: number, ...ids: string[]) => ({
    distinct,
    twice: new Map(ids.map((id) => [id, 1])),
  });

  it('stalls a pass that served every held record and one of them twice in place of the proven row, and ends short at STALLED_PASSES', () => {
    const first = passVerdict(twice({ served: served(94, 'a') }));
    expect(first).toMatchObject({ stalled: 1, complete: false, ends: false, shortfall: 1 });
    expect([...(first.repeated ?? [])]).toEqual([['a', 1]]);
    const last = passVerdict(
      twice({
        served: served(94, 'a'),
        repeatedBefore: first.repeated ?? new Map(),
        stalledBefore: STALLED_PASSES - 1,
      }),
    );
    // The pages prove a row no pass has shown: the day stays short, and is scanned again later.
    expect(last).toMatchObject({ stalled: STALLED_PASSES, complete: false, ends: true, shortfall: 1 });
  });

  it.each([
    { name: 'not counted', e: {} },
    { name: 'a held record left out of the pass (a reshuffled order)', e: { served: served(93, 'a') } },
    {
      name: 'another row twice than the passes before',
      e: { served: served(94, 'b'), repeatedBefore: new Map([['a', 1]]) },
    },
    { name: 'no row twice', e: { served: served(94) } },
    { name: 'a pass that added a row', e: { served: served(94, 'a'), passStart: 93 } },
    {
      name: 'fewer rows twice than the pages prove',
      e: { served: served(93, 'a'), collected: 93, passStart: 93 },
    },
  ])('does not stall $name', ({ e }) => {
    const v = passVerdict(twice({ stalledBefore: 4, ...e }));
    expect(v).toMatchObject({ stalled: 0, complete: false, ends: false, repeated: undefined });
  });

  it('keeps the fewest copies a pass of the streak served', () => {
    const v = passVerdict(
      evidence({
        collected: 93,
        passStart: 93,
        pass: 4,
        served: {
          distinct: 93,
          twice: new Map([
            ['a', 2],
            ['b', 1],
          ]),
        },
        repeatedBefore: new Map([
          ['a', 1],
          ['b', 3],
          ['c', 1],
        ]),
      }),
    );
    expect([...(v.repeated ?? [])].sort()).toEqual([
      ['a', 1],
      ['b', 1],
    ]);
    expect(v.stalled).toBe(1);
  });
});
