import type { BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';
import { BUNDLED_DETECTIONS } from '../../functions/shared/lambdaDetections.ts';

/**
 * A function's bundling plus a copy of `detections/` beside the bundled handler, where
 * `lambdaDetections` reads the rules (the SQL and yml ship with the code they were tested with).
 */
export function withDetections(bundling: BundlingOptions): BundlingOptions {
  return {
    ...bundling,
    commandHooks: {
      beforeBundling: () => [],
      beforeInstall: () => [],
      afterBundling: (inputDir, outputDir) => [
        `cp -R "${inputDir}/detections" "${outputDir}/${BUNDLED_DETECTIONS}"`,
      ],
    },
  };
}
