const REDACTED = '[redacted]';

/** `text` with every occurrence of `secret` masked; servers and libraries may echo what we sent. */
export function redactText(text: string, secret: string): string {
  return secret.length === 0 ? text : text.split(secret).join(REDACTED);
}

/**
 * A plain copy of `error` (name, code, message, stack, cause chain) with `secret` masked, so a
 * transport error can travel as a `cause` into logs without carrying the API key or sockets.
 */
export function redactError(error: unknown, secret: string, depth = 0): Error {
  const source = error instanceof Error ? error : new Error(String(error));
  const copy = new Error(redactText(source.message, secret));
  copy.name = redactText(source.name, secret);
  copy.stack = redactText(source.stack ?? `${copy.name}: ${copy.message}`, secret);
  const code = (source as { code?: unknown }).code;
  if (typeof code === 'string' || typeof code === 'number') Object.assign(copy, { code });
  if (source.cause !== undefined && depth < 4) copy.cause = redactError(source.cause, secret, depth + 1);
  return copy;
}
