import { describe, expect, it } from 'vitest';
import { deliverFinding } from '../../lib/detect/deliverFinding.ts';
import { memoryFindingEvents } from '../../lib/detect/findingEvents.ts';
import { SNS_MESSAGE_LIMIT } from '../../lib/detect/findingMessage.ts';
import { loadRules } from '../../lib/detect/loadRules.ts';
import { type Delivery, replaySchedule } from '../../lib/detect/replaySchedule.ts';
import { durationMs } from '../../lib/detect/ruleSchema.ts';
import type { DetectionSettings } from '../../lib/detect/ruleSettings.ts';
import { plantedIncidents } from './plantedIncidents.ts';

const rules = await loadRules();
const DAY = 86_400_000;
const DAY0 = new Date('2026-03-02T00:00:00Z'); // a Monday
/** The harness's settings: thresholds a replay can reach, a baseline the replay holds. */
const SETTINGS: DetectionSettings = {
  settings: { baseline_days: 2 },
  rules: { concurrent_sessions: { threshold: 3 } },
};
const planted = plantedIncidents(rules, DAY0, (id) =>
  durationMs(rules.find((r) => r.id === id)?.quiet_gap ?? '1h'),
);

/** The SNS message of each new delivery, as `deliverFinding` builds it. */
function snsBytes() {
  let bytes = 0;
  const deliver = deliverFinding({
    publish: async (_s, message) => {
      bytes = Buffer.byteLength(message);
    },
    events: memoryFindingEvents(),
  });
  return (f: Parameters<typeof deliver>[0], rule: Parameters<typeof deliver>[1]) => {
    void deliver(f, rule, 'new');
    return bytes;
  };
}

/** How often the replay runs detect: the rules' lookback (2 days) spans many runs either way. */
const DETECT_EVERY = 6 * 3_600_000;

describe('detect on a schedule, and the live rule on snapshots, over ten days', () => {
  const news = (ds: readonly Delivery[]) => ds.filter((d) => d.status === 'new');

  it('delivers every planted incident of every rule exactly once, and again after the quiet gap', async () => {
    const { deliveries, evaluations } = await replaySchedule({
      sessions: planted.flatMap((p) => p.sessions),
      // The first incident starts on day 4 (history from day 0 is the baseline).
      from: new Date(DAY0.getTime() + 4 * DAY),
      until: new Date(DAY0.getTime() + 14 * DAY),
      rules,
      overrides: SETTINGS,
      detectEveryMs: DETECT_EVERY,
    });
    expect(evaluations).toBe(10 * 4);
    const report = planted.map((p) => {
      const mine = news(deliveries).filter((d) => p.matches(d.finding));
      return `${p.rule} ${p.variant}: ${mine.length}`;
    });
    const want = planted.map((p) => `${p.rule} ${p.variant}: ${p.variant === 'again' ? 2 : 1}`);
    expect(report).toEqual(want);
    for (const p of planted.filter((x) => x.variant === 'again')) {
      const [first, second] = news(deliveries).filter((d) => p.matches(d.finding));
      expect(first?.finding.finding_id, p.rule).not.toBe(second?.finding.finding_id);
      expect(second?.finding.last_seen.getTime(), p.rule).toBeGreaterThanOrEqual(p.at.getTime());
    }
    // Every rule has all its incidents here (the harness covers every rule of detections/).
    expect(new Set(planted.map((p) => p.rule))).toEqual(new Set(rules.map((r) => r.id)));
  }, 300_000);

  it('a crash between claim and publish, and a message too big for SNS, still deliver each alert once', async () => {
    const udp = rules.filter((r) => r.id === 'udp_tunnel');
    const at = (h: number) => new Date(DAY0.getTime() + h * 3_600_000);
    // 3,000 UDP sessions of one token in one day: their record ids alone are over 256 KB.
    const many = Array.from({ length: 3_000 }, (_, i) => ({
      session_id: `udp-big-${'x'.repeat(80)}-${String(i).padStart(6, '0')}`,
      token_hmac: 'tok-big',
      client_address: '198.51.100.1',
      start: new Date(at(1).getTime() + i * 5_000),
      end: new Date(at(1).getTime() + i * 5_000 + 1_000),
      mode_udp: 'udp',
    }));
    const crashOnce = {
      session_id: 'udp-crash',
      token_hmac: 'tok-crash',
      client_address: '198.51.100.2',
      start: at(2),
      end: at(3),
      mode_udp: 'udp',
    };
    const { deliveries } = await replaySchedule({
      sessions: [...many, crashOnce],
      from: DAY0,
      until: at(30),
      rules: udp,
      overrides: SETTINGS,
      detectEveryMs: DETECT_EVERY,
      snapshotEveryMs: 0,
      // The first publish of each alert fails as if the process stopped there.
      failDelivery: (_f, attempt) => attempt === 1,
      message: snsBytes(),
    });
    const byToken = (t: string) => news(deliveries).filter((d) => d.finding.token_hmac === t);
    expect(byToken('tok-crash')).toHaveLength(1);
    const [big] = byToken('tok-big');
    expect(byToken('tok-big')).toHaveLength(1);
    expect(big?.finding.record_count).toBeGreaterThan(2_500);
    expect(big?.bytes).toBeLessThan(SNS_MESSAGE_LIMIT);
    const ids = many.map((s) => `${s.session_id}-r2`.length + 3).reduce((a, b) => a + b, 0);
    expect(ids).toBeGreaterThan(SNS_MESSAGE_LIMIT);
  }, 300_000);
});
