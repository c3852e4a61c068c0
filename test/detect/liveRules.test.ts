import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { recordIncidents } from '../../lib/analytics/detect/evaluateRules.ts';
import type { Finding } from '../../lib/analytics/detect/finding.ts';
import { memoryFindingLedger } from '../../lib/analytics/detect/findingLedger.ts';
import { evaluateLiveRules } from '../../lib/analytics/detect/liveRules.ts';
import { DETECTIONS_DIR, loadRules } from '../../lib/analytics/detect/loadRules.ts';
import { snapshotActive } from '../../lib/archive/active/snapshotActive.ts';
import { ManualClock } from '../../lib/foundation/clock/clock.ts';
import { silentLogger } from '../../lib/foundation/log/logger.ts';
import { MemoryActiveState, MemoryRowSink, session, TOKEN_KEY } from '../active/activeKit.ts';

const rules = await loadRules();
const longTunnel = rules.find((r) => r.id === 'long_tunnel');
/** The rule as a team would edit it: detections/long_tunnel.yml copied with `threshold: 3`. */
const editedDir = mkdtempSync(join(tmpdir(), 'ta-live-rules-'));
afterAll(() => rmSync(editedDir, { recursive: true, force: true }));
const yml = readFileSync(join(DETECTIONS_DIR, 'long_tunnel.yml'), 'utf8');
writeFileSync(join(editedDir, 'long_tunnel.yml'), yml.replace(/^threshold: \d+$/m, 'threshold: 3'));
copyFileSync(join(DETECTIONS_DIR, 'long_tunnel.sql'), join(editedDir, 'long_tunnel.sql'));
const editedRules = await loadRules(editedDir);
const FIVE_MIN = 300_000;
const OPENED = '2026-03-01T08:02:00.000+00:00';

/**
 * Scripted snapshots every 5 minutes: one tunnel open all along, another that closes early. `threshold`
 * is a deployment override; without one the rules' own (yml) threshold holds.
 */
async function runSnapshots(
  threshold: number | undefined,
  from: string,
  count: number,
  ruleSet: typeof rules = rules,
) {
  const state = new MemoryActiveState();
  const sink = new MemoryRowSink();
  const clock = new ManualClock(from);
  const ledger = memoryFindingLedger();
  const alerts: { at: Date; finding: Finding }[] = [];
  const overrides = { settings: {}, rules: threshold === undefined ? {} : { long_tunnel: { threshold } } };
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
          const findings = evaluateLiveRules(observations, observedAt, ruleSet, overrides);
          await recordIncidents(
            {
              ledger,
              logger: silentLogger,
              deliver: async (finding, _rule, status) => {
                if (status === 'new') alerts.push({ at: observedAt, finding });
              },
            },
            findings,
            (id) => ruleSet.find((r) => r.id === id),
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
  it('long_tunnel is live, its threshold as its yml says', () => {
    expect(longTunnel?.live).toBe(true);
    expect(longTunnel?.threshold).toBe(Number(/^threshold: (\d+)$/m.exec(yml)?.[1]));
  });

  it('reads the yml threshold: a rule edited to 3 hours alerts at 3 hours, with no override', async () => {
    const limit = Date.parse(OPENED) + 3 * 3_600_000;
    const alerts = await runSnapshots(undefined, new Date(limit - 7 * 60_000).toISOString(), 4, editedRules);
    expect(alerts.map((a) => a.finding.entity)).toEqual(['open-1']);
    expect(alerts[0]?.at.getTime()).toBe(limit + 3 * 60_000);
  });

  it('alerts within one snapshot period of the tunnel passing the limit, once', async () => {
    // From 23h50m to 24h45m after the tunnel opened, with the rule's own threshold, no override.
    const opened = Date.parse(OPENED);
    const limit = opened + (longTunnel?.threshold ?? 0) * 3_600_000;
    const alerts = await runSnapshots(undefined, new Date(limit - 10 * 60_000).toISOString(), 12);
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
    const alerts = await runSnapshots(undefined, '2026-03-01T09:00:00.000Z', 3);
    expect(alerts).toEqual([]);
  });
});
