/**
 * A preload for a process that runs a function's bundle: `node --import <this file's URL>` with
 * `DEVKIT_AWS_CALL_LOG=<file>` records every AWS call the bundle's clients send into that file (see
 * devkit/awsCallLog.ts). Erasable TypeScript only, so the Lambda's Node runs it as it is.
 */
import { AWS_CALL_LOG_ENV, installAwsCallLog } from './awsCallLog.ts';

const file = process.env[AWS_CALL_LOG_ENV];
if (file !== undefined && file !== '') installAwsCallLog(file);
