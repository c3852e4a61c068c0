import { describe, expect, it } from 'vitest';
import { diffSnapshot } from '../../lib/archive/active/diffSnapshot.ts';
import { longSessions } from '../../lib/archive/active/longSessions.ts';
import { session, TOKEN_KEY } from './activeKit.ts';

const NOW = new Date('2025-03-01T12:00:00.000Z');
const DAY = 86_400_000;
const ago = (days: number) => new Date(NOW.getTime() - days * DAY).toISOString();

describe('longSessions', () => {
  it.each([
    [57.9, false],
    [58, false],
    [58.01, true],
    [70, true],
  ])('a session open %d days with a 60-day window is long: %s', (days, flagged) => {
    const obs = diffSnapshot({ sessions: {} }, [session('a', { creationTimestamp: ago(days) })], NOW, {
      tokenPolicy: 'hash',
      tokenKey: TOKEN_KEY,
      scheduleMs: 300_000,
    }).next;
    expect(longSessions(obs, NOW, 60).map((s) => s.id)).toEqual(flagged ? ['a'] : []);
  });

  it('lists the oldest first, with names and age in days', () => {
    const obs = diffSnapshot(
      { sessions: {} },
      [session('young', { creationTimestamp: ago(59) }), session('old', { creationTimestamp: ago(70) })],
      NOW,
      { tokenPolicy: 'hash', tokenKey: TOKEN_KEY, scheduleMs: 300_000 },
    ).next;
    expect(longSessions(obs, NOW, 60)).toEqual([
      expect.objectContaining({ id: 'old', ageDays: 70, virtualTokenName: 'name-old' }),
      expect.objectContaining({ id: 'young', ageDays: 59 }),
    ]);
  });
});
