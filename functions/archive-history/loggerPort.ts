import type { Logger as PowertoolsLogger } from '@aws-lambda-powertools/logger';
import type { Logger } from '../../lib/log/logger.ts';

/** Adapts Powertools' variadic log methods to lib's `Logger` port: attributes become JSON keys. */
export function loggerPort(logger: PowertoolsLogger): Logger {
  return {
    debug: (message, attributes) => logger.debug(message, attributes ?? {}),
    info: (message, attributes) => logger.info(message, attributes ?? {}),
    warn: (message, attributes) => logger.warn(message, attributes ?? {}),
    error: (message, attributes) => logger.error(message, attributes ?? {}),
  };
}
