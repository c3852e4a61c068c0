import { detectionFindingMapping, type OcsfFindingInput, type OcsfRule } from './detectionFindingMapping.ts';
import { mappedValue } from './mappedField.ts';
import { OCSF_1_8 } from './ocsfProfile.ts';
import { stripNulls } from './stripNulls.ts';

/**
 * One finding as the OCSF 1.8.0 Detection Finding (2004) event its delivery carries: a new finding
 * (revision 0) is a Create, an updated one (a later revision) an Update, as the findings view maps its
 * first stored row and the rows after it, from the same declaration (`detectionFindingMapping`); without
 * `related_events` (the delivery names no session events; `rows_sql` beside it shows the rows).
 */
export function toOcsfDetectionFinding(
  f: OcsfFindingInput & { revision?: number },
  rule: OcsfRule,
): Record<string, unknown> {
  const later = (f.revision ?? 0) > 0;
  return stripNulls(mappedValue(detectionFindingMapping(OCSF_1_8), f, rule, later)) as Record<
    string,
    unknown
  >;
}
