import { archiveKeys, type ObjectStore } from '../../archive/index.ts';
import type { Clock } from '../../foundation/index.ts';
import { readStatusInputs, type StatusReads } from '../status/archiveStatus.ts';
import { storeVerify } from '../verify/storeVerify.ts';
import type { VerifyResult } from '../verify/verifyTypes.ts';
import { buildReportModel } from './buildReportModel.ts';
import { renderReport } from './renderReport.ts';

/**
 * Writes the report of the archive, with a verify result, to `reports/index.html` in the archive itself
 * (the weekly verify in AWS), and the result beside it (`reports/verify.json`) for a local `report`. The key is replaced each time: `reports/` is not write-once, and the
 * bucket's lifecycle keeps the last versions.
 */
export async function publishReport(
  deps: {
    objects: ObjectStore;
    state: StatusReads;
    clock: Clock;
  },
  options: { windowDays: number; verify: VerifyResult },
): Promise<{ key: string; bytes: number }> {
  const model = await buildReportModel({
    objects: deps.objects,
    clock: deps.clock,
    windowDays: options.windowDays,
    state: await readStatusInputs(deps.state),
    verify: options.verify,
  });
  await storeVerify(deps.objects, options.verify);
  const bytes = await deps.objects.put(archiveKeys.report, renderReport(model));
  return { key: archiveKeys.report, bytes };
}
