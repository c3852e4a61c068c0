import { deployedSchedule } from '../devkit/deployedSchedule.ts';
import { replaySchedule, replayTokenHmac } from '../devkit/replaySchedule.ts';
import { loadRules } from '../lib/analytics/detect/loadRules.ts';
import { parseDetectionSettings } from '../lib/analytics/detect/ruleSettings.ts';
import { TEAM_SETTINGS, teamTraffic } from '../lib/archive/emulator/teamTraffic.ts';
import { addDays } from '../lib/foundation/clock/day.ts';

export interface DetectionNoise {
  weeks: number;
  /** Detect ticks that ran rules (each rule runs on its own schedule) and active-list snapshots. */
  evaluations: number;
  snapshots: number;
  /** New findings a week per rule over the weeks after the baseline (nothing is planted: all are noise). */
  perRule: Record<string, number>;
  perWeek: number;
  /** The budget: at most this many new unplanted findings a week, all rules together. */
  maxPerWeek: 2;
}

const DAY = 86_400_000;

/**
 * The team profile's ordinary traffic (lib/archive/emulator/teamTraffic.ts) for the baseline (14 days) and
 * `weeks` weeks more, replayed through every rule with the settings such a team writes, on the stack's
 * schedules (`deployedSchedule`, the scheduled-runs harness's source: the detect function's rate with
 * each rule on its own schedule, the snapshot function's rate and commit period with the live rule,
 * the archiver's rate). Every new finding is a false alarm.
 */
export async function detectionNoise(weeks = 8): Promise<DetectionNoise> {
  const rules = await loadRules();
  // The team writes its tokens' digests (what findings and the archive show) into the settings.
  const digests = (tokens: readonly string[]) => tokens.map(replayTokenHmac);
  const settings = {
    ...TEAM_SETTINGS,
    rules: {
      ...TEAM_SETTINGS.rules,
      off_hours: { exempt_tokens: digests(TEAM_SETTINGS.rules.off_hours.exempt_tokens) },
    },
  };
  const overrides = parseDetectionSettings(settings, rules, 'the team settings');
  const from = '2026-03-02';
  const baselineDays = 14;
  const sessions = teamTraffic('team', from, baselineDays + weeks * 7).map(({ token_hmac, ...s }) => ({
    ...s,
    token: token_hmac,
  }));
  const start = Date.parse(`${addDays(from, baselineDays)}T00:00:00Z`);
  const { deliveries, evaluations, snapshots } = await replaySchedule({
    sessions,
    from: new Date(start - 6 * 3_600_000),
    until: new Date(start + weeks * 7 * DAY),
    rules,
    overrides,
    schedule: deployedSchedule(),
  });
  const perRule: Record<string, number> = Object.fromEntries(rules.map((r) => [r.id, 0]));
  for (const d of deliveries)
    if (d.status === 'new') perRule[d.finding.rule_id] = (perRule[d.finding.rule_id] ?? 0) + 1 / weeks;
  const perWeek = Object.values(perRule).reduce((a, b) => a + b, 0);
  return { weeks, evaluations, snapshots, perRule, perWeek, maxPerWeek: 2 };
}
