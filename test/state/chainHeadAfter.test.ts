import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ChainHead } from '../../lib/archive/digest/digestState.ts';
import { chainHeadAfter } from '../../lib/archive/state/chainHeadAfter.ts';

const digest = (seq: number) => ({
  seq,
  key: `digests/${String(seq).padStart(10, '0')}.json`,
  sha256: seq.toString(16).padStart(64, '0'),
  createdAt: new Date(Date.UTC(2026, 0, 1, 0, seq)).toISOString(),
});

describe('chainHeadAfter', () => {
  it('moves the head to a further digest, and keeps it for an older or equal one or none', () => {
    const five: ChainHead = { seq: 5, key: digest(5).key, sha256: digest(5).sha256, at: digest(5).createdAt };
    expect(chainHeadAfter({ chainHead: five }, digest(6))?.seq).toBe(6);
    expect(chainHeadAfter({ chainHead: five }, digest(3))).toBe(five);
    expect(chainHeadAfter({ chainHead: five }, { ...digest(5), sha256: 'f'.repeat(64) })).toBe(five);
    expect(chainHeadAfter({ chainHead: five }, undefined)).toBe(five);
    expect(chainHeadAfter({}, digest(1))?.seq).toBe(1);
  });

  it('whatever order writers record their digests in, the head never moves backwards and ends at the newest', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 50 }), { minLength: 1, maxLength: 30 }), (seqs) => {
        let meta: { chainHead?: ChainHead } = {};
        let before = 0;
        for (const seq of seqs) {
          const head = chainHeadAfter(meta, digest(seq));
          meta = head ? { chainHead: head } : {};
          expect(meta.chainHead?.seq ?? 0).toBeGreaterThanOrEqual(before);
          before = meta.chainHead?.seq ?? 0;
        }
        expect(before).toBe(Math.max(...seqs));
      }),
    );
  });
});
