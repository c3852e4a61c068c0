import { describe, expect, it } from 'vitest';
import type { ActiveState } from '../../lib/archive/active/activeState.ts';
import { activeStatus } from '../../lib/archive/active/activeStatus.ts';
import { diffSnapshot } from '../../lib/archive/active/diffSnapshot.ts';
import { session, TOKEN_KEY } from './activeKit.ts';

const NOW = new Date('2025-03-01T12:00:00.000Z');
const OPTS = { tokenPolicy: 'hash' as const, tokenKey: TOKEN_KEY, scheduleMs: 300_000 };

function stateAt(at: Date): ActiveState {
  const next = diffSnapshot(
    { sessions: {} },
    [
      session('old', { creationTimestamp: '2024-12-01T00:00:00Z' }),
      session('new', { creationTimestamp: at.toISOString() }),
    ],
    at,
    OPTS,
  ).next;
  return { ...next, gaps: [], version: 3 };
}

describe('activeStatus', () => {
  it('reports open sessions, the long ones and a fresh last snapshot', () => {
    const status = activeStatus(stateAt(new Date(NOW.getTime() - 60_000)), NOW, 60);
    expect(status).toMatchObject({ open: 2, stale: false, pendingRows: 0, gaps: [] });
    expect(status.longSessions.map((s) => s.id)).toEqual(['old']);
  });

  it.each([
    [10 * 60_000, false],
    [10 * 60_000 + 1, true],
  ])('a last snapshot %d ms old is stale: %s', (age, stale) => {
    expect(activeStatus(stateAt(new Date(NOW.getTime() - age)), NOW, 60).stale).toBe(stale);
  });

  it('is stale and empty before the first snapshot', () => {
    expect(activeStatus(undefined, NOW, 60)).toEqual({
      open: 0,
      lastSnapshotAt: null,
      stale: true,
      longSessions: [],
      gaps: [],
      pendingRows: 0,
    });
  });
});
