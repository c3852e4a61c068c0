/** Metric names of the detect function, shared by the handler (which emits) and the stack (dashboards, alarms). */
export { METRICS_NAMESPACE } from './telemetryNames.ts';

export const DETECT_SERVICE = 'tunnel-archiver-detect';

export const DETECT_METRIC = {
  /** Findings of one evaluation, with dimensions `rule` and `severity`. */
  Findings: 'Findings',
  /** Findings delivered for the first time (claimed), with dimensions `rule` and `severity`. */
  NewFindings: 'NewFindings',
  /** 1 for an evaluation that ran every due rule, 0 for a failed one. */
  EvaluationSucceeded: 'EvaluationSucceeded',
} as const;
