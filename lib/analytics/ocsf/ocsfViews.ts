import { ARCHIVE_DATABASE, HISTORY_TABLE, type ViewSpec } from '../query/activeViews.ts';
import type { OcsfRule } from './detectionFindingMapping.ts';
import { findingsOcsfColumns, findingsOcsfSql } from './findingsOcsfSql.ts';
import { OCSF_1_8 } from './ocsfProfile.ts';
import { sessionsOcsfColumns, sessionsOcsfSql } from './sessionsOcsfSql.ts';

export const TUNNEL_SESSIONS_OCSF_VIEW = 'tunnel_sessions_ocsf';
export const FINDINGS_OCSF_VIEW = 'tunnel_findings_ocsf';

/**
 * The two OCSF views the stack deploys in Glue (OCSF 1.8.0): the same SQL the export runs in DuckDB.
 * `findingsTable` is the Glue name of the findings dataset; `rules` give each finding its runbook and
 * ATT&CK entries.
 */
export function ocsfViews(
  findingsTable: string,
  rules: readonly OcsfRule[],
): { sessions: ViewSpec; findings: ViewSpec } {
  const history = `${ARCHIVE_DATABASE}.${HISTORY_TABLE}`;
  return {
    sessions: {
      name: TUNNEL_SESSIONS_OCSF_VIEW,
      description:
        'History as OCSF 1.8.0 Tunnel Activity (class_uid 4014): per session an Open and, once ended, a Close event',
      sql: sessionsOcsfSql(history, OCSF_1_8),
      columns: sessionsOcsfColumns(OCSF_1_8),
    },
    findings: {
      name: FINDINGS_OCSF_VIEW,
      description:
        'Findings as OCSF 1.8.0 Detection Finding (class_uid 2004): Create, then Update as an incident grows',
      sql: findingsOcsfSql({ findings: `${ARCHIVE_DATABASE}.${findingsTable}`, history }, OCSF_1_8, rules),
      columns: findingsOcsfColumns(OCSF_1_8, rules),
    },
  };
}
