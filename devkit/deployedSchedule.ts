import { snapshotSettings } from '../functions/snapshot-active/snapshotSettings.ts';
import { loadConfig } from '../lib/archive/config/loadConfig.ts';
import { propsOf, synthApp } from './infra/testApp.ts';
import type { DeployedSchedule } from './replaySchedule.ts';

const DAY = 86_400_000;

/** `rate(5 minutes)` → ms (the stack's schedules are rates). */
export function rateMs(expression: unknown): number {
  const m = /^rate\((\d+) (minute|minutes|hour|hours|day|days)\)$/.exec(String(expression));
  if (!m) throw new Error(`not a rate: ${String(expression)}`);
  const unit = m[2]?.startsWith('minute') ? 60_000 : m[2]?.startsWith('hour') ? 3_600_000 : DAY;
  return Number(m[1]) * unit;
}

/**
 * The schedules as the stack deploys them, read from the synthesized template: the detect rule's rate
 * (equal to its function's `SCHEDULE_MINUTES`, the period `dueRules` reads), the snapshot function's
 * rate and commit period (its environment through the config it parses), the archiver's rate. The one
 * source of the scheduled-runs harness and the noise bench; each rule's own schedule is its yml's.
 */
export function deployedSchedule(): DeployedSchedule {
  const app = synthApp();
  const detectRule = propsOf(app, app.stack.detections.rule);
  const detectFn = propsOf(app, app.stack.detections.fn).Environment?.Variables ?? {};
  const snapshotEnv = Object.fromEntries(
    Object.entries(propsOf(app, app.stack.snapshots.fn).Environment?.Variables ?? {}).filter(
      (e): e is [string, string] => typeof e[1] === 'string',
    ),
  );
  const detectMs = rateMs(detectRule.ScheduleExpression);
  // The handler's period (SCHEDULE_MINUTES) is the rule's rate: a rule is due once per its own schedule.
  if (Number(detectFn.SCHEDULE_MINUTES) * 60_000 !== detectMs)
    throw new Error(
      `the detect function's SCHEDULE_MINUTES (${detectFn.SCHEDULE_MINUTES}) is not its rule's rate`,
    );
  const snapshot = snapshotSettings(loadConfig({ env: snapshotEnv }));
  const snapshotMs = rateMs(propsOf(app, app.stack.snapshots.rule).ScheduleExpression);
  if (snapshot.scheduleMs !== snapshotMs)
    throw new Error("the snapshot function's interval setting is not its rule's rate");
  return {
    detectMs,
    snapshotMs,
    snapshotCommitMs: snapshot.commitEveryMs,
    archiveMs: rateMs(propsOf(app, app.stack.archiver.rule).ScheduleExpression),
  };
}
