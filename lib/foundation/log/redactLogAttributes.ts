/** What replaces a token-bearing value in a log line. */
export const REDACTED = '[redacted]';

/** Names that carry a policy, not a secret, though they contain a secret-sounding word. */
const NOT_SECRET = new Set(['tokenpolicy', 'tokenvalues', 'tokenkeysecretid', 'apikeysecretid']);

/**
 * True for an attribute name that may carry a raw token or credential at any depth (`token_value`,
 * `virtualToken`, `apiKey`, `Authorization`, `secret`, ...), compared without case or separators.
 */
export function isTokenBearingName(name: string): boolean {
  const n = name.toLowerCase().replace(/[^a-z0-9]/g, '');
  if (NOT_SECRET.has(n)) return false;
  return /token|apikey|secret|password|authorization|credential/.test(n);
}

/**
 * A copy of log attributes with every token-bearing member replaced by `[redacted]`, at any depth of
 * objects and arrays (cycles and depth beyond 16 are cut), so no log line can carry a raw token.
 */
export function redactLogAttributes(attributes: Record<string, unknown>): Record<string, unknown> {
  return redact(attributes, new WeakSet(), 0) as Record<string, unknown>;
}

function redact(value: unknown, seen: WeakSet<object>, depth: number): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (value instanceof Date) return value;
  if (depth > 16 || seen.has(value)) return '[cut]';
  seen.add(value);
  if (Array.isArray(value)) return value.map((v) => redact(v, seen, depth + 1));
  if (value instanceof Error) {
    return { name: value.name, message: value.message, ...(redact({ ...value }, seen, depth + 1) as object) };
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = isTokenBearingName(k) && v !== null && v !== undefined ? REDACTED : redact(v, seen, depth + 1);
  }
  return out;
}
