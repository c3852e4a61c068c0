import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type WeekUsage, weekUsageSchema } from '../../devkit/firstWeek/weekUsage.ts';
import type { CfnTemplate } from '../../devkit/infra/templateArns.ts';
import { synthApp } from '../../devkit/infra/testApp.ts';
import { loadRulesSync } from '../../lib/analytics/detect/loadRules.ts';
import { durationMs } from '../../lib/analytics/detect/ruleSchema.ts';
import type { ResultsInput } from '../resultsInput.ts';
import { shippedSettings } from '../shippedSettings.ts';
import type { ScaleFigures } from './monthlyCost.ts';

/** The first week's usage as test/scenarios/firstWeek.int.test.ts measured it (it checks this copy is its week). */
export const FIRST_WEEK_USAGE = fileURLToPath(new URL('./firstWeekUsage.json', import.meta.url));
const RESULTS_JSON = fileURLToPath(new URL('../RESULTS.json', import.meta.url));

export function readFirstWeekUsage(file = FIRST_WEEK_USAGE): WeekUsage {
  return weekUsageSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
}

/**
 * The model's figures, each from its source: the bench's measured results (bench/RESULTS.json: the page size
 * the big days ran at, a walk's billed seconds a page, Parquet bytes a record), the shipped stack (its
 * `fanoutRangePages` and its resources that bill by the month, from a fresh synthesis) and the detection rules
 * (their lookbacks).
 */
export function costFigures(resultsFile = RESULTS_JSON): ScaleFigures {
  const results = JSON.parse(readFileSync(resultsFile, 'utf8')) as ResultsInput;
  const backfill = results.results.find((r) => r.name === 'default-backfill');
  const pageRows = results.bigDays?.[0]?.pageRows;
  const secondsPerPage = results.fanout?.workerSecondsPerPage;
  if (backfill?.parquetBytes === undefined || pageRows === undefined || secondsPerPage === undefined)
    throw new Error(`${resultsFile}: no default-backfill, big-day or fanout-2M figures; run npm run bench`);
  const template = synthApp().template.toJSON() as CfnTemplate;
  const count = (type: string) => Object.values(template.Resources).filter((r) => r.Type === type).length;
  return {
    pageRows,
    secondsPerPage,
    bytesPerRecord: backfill.parquetBytes / backfill.records,
    rangePages: shippedSettings().fanoutMachine.rangePages,
    ruleLookbackDays: loadRulesSync().map((r) => durationMs(r.lookback) / 86_400_000),
    resources: {
      alarms: count('AWS::CloudWatch::Alarm'),
      dashboards: count('AWS::CloudWatch::Dashboard'),
      secrets: count('AWS::SecretsManager::Secret'),
      kmsKeys: count('AWS::KMS::Key'),
    },
  };
}
