import { describe, expect, it } from 'vitest';
import { lastSweepAge, sealRule } from '../../lib/archive/days/sealRule.ts';

describe('sealRule: one place for when a day is sealed', () => {
  it('seals only on a complete scan at the last queryable age', () => {
    expect(lastSweepAge(60)).toBe(59);
    expect(sealRule.seals({ complete: true, age: 59 }, 60)).toBe(true);
    expect(sealRule.seals({ complete: false, age: 59 }, 60)).toBe(false);
    expect(sealRule.seals({ complete: true, age: 58 }, 60)).toBe(false);
    expect(sealRule.seals({ complete: true, age: 58 }, 59)).toBe(true); // a server that keeps 59 days
  });

  it('a sealed or gap day is settled (never planned again); a seal is never undone by a merge', () => {
    expect(sealRule.settled({ sealed: true })).toBe(true);
    expect(sealRule.settled({ sealed: false, gap: true })).toBe(true);
    expect(sealRule.settled({ sealed: false })).toBe(false);
    expect(sealRule.settled(undefined)).toBe(false);
    expect(sealRule.merged({ sealed: false }, { sealed: true })).toBe(true);
    expect(sealRule.merged({ sealed: true }, undefined)).toBe(true);
    expect(sealRule.merged({ sealed: false }, { sealed: false })).toBe(false);
  });
});
