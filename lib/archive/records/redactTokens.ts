import type { TokenPolicy } from './archiveRow.ts';
import { canonicalJson, setOwn } from './canonicalJson.ts';
import { tokenHmac } from './tokenHmac.ts';

/**
 * Property names that carry a secret, matched case-insensitively anywhere in the name
 * (`token_value`, `virtualToken`, `X-Api-Key`, `clientSecret`, `Authorization`, `credentials`…).
 */
export const TOKEN_BEARING_NAME = /token|secret|passw(or)?d|api[-_]?key|authorization|credential/i;

/** Whether a property of this name is redacted by {@link redactTokens}. */
export function isTokenBearingName(name: string): boolean {
  return TOKEN_BEARING_NAME.test(name);
}

/**
 * A copy of any JSON value with every token-bearing property (see {@link TOKEN_BEARING_NAME}), at any
 * depth and inside arrays, handled by the token policy:
 * - `hash`: the value becomes its `tokenHmac` (a string as is; any other non-null value as its
 *   canonical JSON); null stays null;
 * - `drop`: the property is removed;
 * - `keep`: the value is kept.
 * A secret quoted inside any other string value is replaced too (see `scrub`).
 * The one redaction rule for `extra_json`, quarantine files and anything else that stores raw items.
 * The input is never mutated. A value nested deeper than {@link REDACT_MAX_DEPTH} levels (which a history
 * record cannot be: see `RECORD_LIMITS`) becomes the text `[nested too deep]` under `hash` and `drop`:
 * what cannot be searched is not kept, and the walk never runs out of stack.
 */
export function redactTokens(
  value: unknown,
  policy: TokenPolicy,
  tokenKey: Uint8Array,
  knownSecrets: readonly (string | null | undefined)[] = [],
): unknown {
  if (policy === 'keep') return value;
  // A secret also leaks when it is quoted inside another value (`"note": "token=ABC123"`): every string is
  // searched for the secrets this item carries under token-bearing names, and for `knownSecrets`.
  const secrets = new Set<string>();
  for (const s of knownSecrets) if (typeof s === 'string' && s.length >= MIN_SECRET_LENGTH) secrets.add(s);
  collectSecrets(value, secrets);
  return walk(
    value,
    policy,
    tokenKey,
    [...secrets].sort((a, b) => b.length - a.length),
  );
}

/** Levels below the value itself that redaction looks into (above the record limit's 32). */
export const REDACT_MAX_DEPTH = 64;

const TOO_DEEP = '[nested too deep]';

/** Shorter values are not searched for inside other strings: they would match by chance. */
const MIN_SECRET_LENGTH = 6;

function collectSecrets(value: unknown, into: Set<string>, bearing = false, depth = 0): void {
  if (typeof value === 'string') {
    if (bearing && value.length >= MIN_SECRET_LENGTH) into.add(value);
    return;
  }
  if (depth >= REDACT_MAX_DEPTH) return;
  if (Array.isArray(value)) {
    for (const item of value) collectSecrets(item, into, bearing, depth + 1);
    return;
  }
  if (value === null || typeof value !== 'object') return;
  for (const [key, member] of Object.entries(value))
    collectSecrets(member, into, bearing || isTokenBearingName(key), depth + 1);
}

function walk(
  value: unknown,
  policy: 'hash' | 'drop',
  tokenKey: Uint8Array,
  secrets: readonly string[],
  depth = 0,
): unknown {
  if (typeof value === 'string') return scrub(value, policy, tokenKey, secrets);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= REDACT_MAX_DEPTH) return TOO_DEEP;
  if (Array.isArray(value)) return value.map((item) => walk(item, policy, tokenKey, secrets, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) {
    if (!isTokenBearingName(key)) setOwn(out, key, walk(member, policy, tokenKey, secrets, depth + 1));
    else if (policy === 'hash') setOwn(out, key, hashValue(member, tokenKey));
  }
  return out;
}

/** Every occurrence of a secret inside a string: `hmac:<HMAC>` under hash, `[redacted]` under drop. */
function scrub(
  text: string,
  policy: 'hash' | 'drop',
  tokenKey: Uint8Array,
  secrets: readonly string[],
): string {
  let out = text;
  for (const secret of secrets) {
    if (!out.includes(secret)) continue;
    out = out.split(secret).join(policy === 'hash' ? `hmac:${tokenHmac(tokenKey, secret)}` : '[redacted]');
  }
  return out;
}

function hashValue(value: unknown, tokenKey: Uint8Array): unknown {
  if (value === null || value === undefined) return value;
  return tokenHmac(tokenKey, typeof value === 'string' ? value : canonicalJson(value));
}
