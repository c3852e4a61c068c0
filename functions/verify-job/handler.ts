/**
 * The verify job's Lambda entry point (plan, item and merge steps of its state machine): wiring only, built
 * once per container; the behaviour lives in `createVerifyJobHandler` and lib/integrity/verify.
 */

import { Logger } from '@aws-lambda-powertools/logger';
import { S3Client } from '@aws-sdk/client-s3';
import { loadConfig } from '../../lib/archive/config/loadConfig.ts';
import { objectStoreFromUrl } from '../../lib/archive/store/objectStoreFromUrl.ts';
import { systemClock } from '../../lib/foundation/clock/clock.ts';
import { s3ClientConfig, withHostPlugins } from '../shared/awsClients.ts';
import { loggerPort } from '../shared/loggerPort.ts';
import { SERVICE_NAME } from '../shared/telemetryNames.ts';
import { createVerifyJobHandler } from './verifyJobHandler.ts';

const logger = new Logger({ serviceName: SERVICE_NAME });
const config = loadConfig({ env: process.env, readsOnly: true });
const objects = objectStoreFromUrl(config.dest, {
  s3Client: withHostPlugins(new S3Client(s3ClientConfig(process.env))),
});

export const handler = createVerifyJobHandler({ objects, clock: systemClock, logger: loggerPort(logger) });
