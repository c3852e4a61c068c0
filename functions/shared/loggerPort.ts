import type { Logger as PowertoolsLogger } from '@aws-lambda-powertools/logger';
import { type Logger, redactingLogger } from '../../lib/foundation/log/logger.ts';

/**
 * Adapts Powertools' variadic log methods to lib's `Logger` port: attributes become JSON keys, after
 * token-bearing members are redacted.
 */
export function loggerPort(logger: PowertoolsLogger): Logger {
  return redactingLogger({
    debug: (message, attributes) => logger.debug(message, attributes ?? {}),
    info: (message, attributes) => logger.info(message, attributes ?? {}),
    warn: (message, attributes) => logger.warn(message, attributes ?? {}),
    error: (message, attributes) => logger.error(message, attributes ?? {}),
  });
}
