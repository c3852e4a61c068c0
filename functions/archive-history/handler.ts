/**
 * Lambda entry point: wiring only. Clients, config and stores are built once per container
 * (`lambdaRuntime`); the behaviour lives in `createArchiveHandler` (tested without AWS).
 */

import type { Context } from 'aws-lambda';
import type { RunSummary } from '../../lib/archive/run/runTypes.ts';
import type { VerifyResult } from '../../lib/integrity/verify/verifyTypes.ts';
import { lambdaDeps, logger } from '../shared/lambdaRuntime.ts';
import { type ChecksumReportsSummary, createArchiveHandler } from './archiveHandler.ts';

const archive = createArchiveHandler(lambdaDeps);

export const handler = async (
  event: unknown,
  context: Context,
): Promise<RunSummary | VerifyResult | ChecksumReportsSummary> => {
  logger.addContext(context);
  return archive(event, context);
};
