/**
 * Security analytics' public entry point: the SQL dialects of Athena and DuckDB, SQL over the archive (local
 * views), the OCSF exports and the detections (rules, their tests and settings, findings). DuckDB is imported
 * when a query first runs, not when this loads.
 */
export { detectLocalArchive } from './detect/detectLocalArchive.ts';
export type { FindingLedger } from './detect/findingLedger.ts';
export { anyAtOrAbove, findingsJson, formatFindings } from './detect/formatFindings.ts';
export { loadRules } from './detect/loadRules.ts';
export type { Severity } from './detect/ruleSchema.ts';
export { SEVERITIES } from './detect/ruleSchema.ts';
export { NO_OVERRIDES, readDetectionSettings } from './detect/ruleSettings.ts';
export { runRuleTests } from './detect/runRuleTests.ts';
export { versionedFindingLedger } from './detect/versionedFindingLedger.ts';
export type { OcsfFormat } from './ocsf/exportOcsf.ts';
export { exportOcsf, OCSF_FORMATS } from './ocsf/exportOcsf.ts';
export type { OcsfClass } from './ocsf/ocsfArchive.ts';
export { OCSF_CLASSES } from './ocsf/ocsfArchive.ts';
export { ARCHIVE_DATABASE, LOST_SESSIONS_VIEW, NAMED_SESSIONS_VIEW } from './query/activeViews.ts';
export { localViewSetup } from './query/localViews.ts';
export { sqlString } from './query/sqlString.ts';
export { ATHENA_SESSIONS_TABLE, tokenLookup } from './query/tokenLookup.ts';
export { athenaLikeDuckdb } from './sql/athenaLikeDuckdb.ts';
