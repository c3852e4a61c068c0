import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DETECTIONS_DIR, loadRules } from '../../lib/analytics/detect/loadRules.ts';
import type { DetectionRule } from '../../lib/analytics/detect/ruleSchema.ts';
import { type DetectionSettings, parseDetectionSettings } from '../../lib/analytics/detect/ruleSettings.ts';
import { ArchiverError } from '../../lib/foundation/errors/archiverError.ts';

/** Folder the stack's bundling copies `detections/` to, beside the bundled handler. */
export const BUNDLED_DETECTIONS = 'detections';

/**
 * The rules and the deployment's overrides for a Lambda: rules from the copy of `detections/` in the
 * bundle (the repository's folder when run from source), overrides from `DETECTION_SETTINGS` (JSON,
 * the stack's `detections` context).
 */
export async function lambdaDetections(
  env: Record<string, string | undefined>,
  moduleUrl: string,
): Promise<{ rules: DetectionRule[]; overrides: DetectionSettings }> {
  const bundled = join(dirname(fileURLToPath(moduleUrl)), BUNDLED_DETECTIONS);
  const rules = await loadRules(
    env.DETECTIONS_DIR ?? (moduleUrl.includes('/functions/') ? DETECTIONS_DIR : bundled),
  );
  let raw: unknown = {};
  try {
    raw = JSON.parse(env.DETECTION_SETTINGS ?? '{}');
  } catch (cause) {
    throw new ArchiverError('CONFIG_INVALID', 'DETECTION_SETTINGS must be JSON', { cause });
  }
  return { rules, overrides: parseDetectionSettings(raw, rules, 'DETECTION_SETTINGS') };
}
