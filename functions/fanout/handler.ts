/**
 * The fan-out's Lambda entry point (plan, walk and finish steps of the state machine): wiring only, the
 * same once-per-container runtime as the archiver's; the behaviour lives in `createFanoutHandler`.
 */

import type { Context } from 'aws-lambda';
import { lambdaDeps, logger } from '../shared/lambdaRuntime.ts';
import { createFanoutHandler } from './fanoutHandler.ts';

const step = createFanoutHandler(lambdaDeps);

export const handler = async (event: unknown, context: Context): Promise<unknown> => {
  logger.addContext(context);
  return step(event, context);
};
