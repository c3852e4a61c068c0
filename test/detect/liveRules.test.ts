import { describe, expect, it } from 'vitest';
import { snapshotActive } from '../../lib/active/snapshotActive.ts';
import { ManualClock } from '../../lib/clock/clock.ts';
import { recordIncidents } from '../../lib/detect/evaluateRules.ts';
import type { Finding } from '../../lib/detect/finding.ts';
import { memoryFindingLedger } from '../../lib/detect/findingLedger.ts';
import { evaluateLiveRules } from '../../lib/detect/liveRules.ts';
import { loadRules } from '../../lib/detect/loadRules.ts';
import { silentLogger } from '../../lib/log/logger.ts';
import { MemoryActiveState, MemoryRowSink, session, TOKEN_KEY } from '../active/activeKit.ts';

const rules = await loadRules();
const longTunnel = rules.find((r) => r.id === 'long_tunnel');
const FIVE_MIN = 300_000;
const OPENED = '2026-03-01T08:02:00.000+00:00';

/** Scripted snapshots every 5 minutes: one tunnel open all along, another that closes early. */
async function runSnapshots(threshold: number, from: string, count: number) {
  const state = new MemoryActiveState();
  const sink = new MemoryRowSink();
  const clock = new ManualClock(from);
  const ledger = memoryFindingLedger();
  const alerts: { at: Date; finding: Finding }[] = [];
  const overrides = { settings: {}, rules: { long_tunnel: { threshold } } };
  for (let i = 0; i < count; i++) {
    const list = [session('open-1', { creationTimestamp: OPENED })];
    // Opened an hour after the first, listed only in the first three snapshots: it never reaches the limit.
    if (i < 3) list.push(session('short-1', { creationTimestamp: '2026-03-01T09:02:00.000+00:00' }));
    await snapshotActive(
      {
        api: { listActive: async () => list },
        state,
        commitRows: sink.commitRows,
        clock,
        logger: silentLogger,
        tokenKey: TOKEN_KEY,
        afterSnapshot: async (observations, observedAt) => {
          const findings = evaluateLiveRules(observations, observedAt, rules, overrides);
          await recordIncidents(
            {
              ledger,
              logger: silentLogger,
              deliver: async (finding, _rule, status) => {
                if (status === 'new') alerts.push({ at: observedAt, finding });
              },
            },
            findings,
            (id) => rules.find((r) => r.id === id),
            observedAt,
          );
        },
      },
      { tokenPolicy: 'hash', windowDays: 60, scheduleMs: FIVE_MIN },
    );
    clock.advance(FIVE_MIN);
  }
  return alerts;
}

describe('evaluateLiveRules on the snapshot path', () => {
  it('long_tunnel is live and reads the yml threshold', () => {
    expect(longTunnel?.live).toBe(true);
  });

  it('alerts within one snapshot period of the tunnel passing the limit, once', async () => {
    // From 23h50m to 24h45m after the tunnel opened, with the rule's threshold of 24 hours.
    const opened = Date.parse(OPENED);
    const limit = opened + (longTunnel?.threshold ?? 0) * 3_600_000;
    const alerts = await runSnapshots(
      longTunnel?.threshold ?? 0,
      new Date(limit - 10 * 60_000).toISOString(),
      12,
    );
    expect(alerts.map((a) => a.finding.entity)).toEqual(['open-1']);
    const [first] = alerts;
    expect(first?.finding.source).toBe('live');
    expect((first?.at.getTime() ?? 0) - limit).toBeGreaterThanOrEqual(0);
    expect((first?.at.getTime() ?? 0) - limit).toBeLessThan(FIVE_MIN);
  });

  it('follows a deployment override of the threshold (2 hours)', async () => {
    const limit = Date.parse(OPENED) + 2 * 3_600_000;
    const alerts = await runSnapshots(2, new Date(limit - 7 * 60_000).toISOString(), 4);
    expect(alerts.map((a) => a.finding.entity)).toEqual(['open-1']);
    expect(alerts[0]?.at.getTime()).toBe(limit + 3 * 60_000);
  });

  it('says nothing before the limit', async () => {
    const alerts = await runSnapshots(24, '2026-03-01T09:00:00.000Z', 3);
    expect(alerts).toEqual([]);
  });
});
