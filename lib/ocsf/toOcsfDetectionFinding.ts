import { detectionFindingMapping, type OcsfFindingInput, type OcsfRule } from './detectionFindingMapping.ts';
import { mappedValue } from './mappedField.ts';
import { OCSF_1_8 } from './ocsfProfile.ts';
import { stripNulls } from './stripNulls.ts';

/**
 * One new finding as the OCSF 1.8.0 Detection Finding (2004) Create event SNS delivers: the findings
 * view's first row of that finding, from the same declaration (`detectionFindingMapping`), without
 * `related_events` (the delivery names no session events; `rows_sql` beside it shows the rows).
 */
export function toOcsfDetectionFinding(f: OcsfFindingInput, rule: OcsfRule): Record<string, unknown> {
  return stripNulls(mappedValue(detectionFindingMapping(OCSF_1_8), f, rule)) as Record<string, unknown>;
}
