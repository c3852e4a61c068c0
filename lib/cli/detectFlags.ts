import { SEVERITIES } from '../detect/ruleSchema.ts';
import { type FlagSet, HELP_FLAG, NOW_FLAG, SETTING_FLAGS } from './parseCliFlags.ts';

/** Flags of `detect` (apart from the command, so `--help` loads no rule engine). */
export const DETECT_FLAGS: FlagSet = {
  dest: SETTING_FLAGS.dest as FlagSet[string],
  since: {
    type: 'string',
    help: "DAY (YYYY-MM-DD): evaluate from that day on (default: each rule's lookback)",
  },
  rule: { type: 'string', help: 'ID: run only this rule (detections/<ID>.yml)' },
  json: { type: 'boolean', help: 'print the findings as a JSON array' },
  'fail-on': {
    type: 'string',
    help: `SEVERITY (${SEVERITIES.join('|')}): exit 9 when a finding is at or above it`,
  },
  settings: { type: 'string', help: 'FILE (YAML or JSON): thresholds, allowlists, time zone per deployment' },
  test: { type: 'boolean', help: "run every rule's yml tests (in DuckDB, in memory) instead" },
  ...NOW_FLAG,
  ...HELP_FLAG,
};
