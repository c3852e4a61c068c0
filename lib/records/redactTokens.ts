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
 * The one redaction rule for `extra_json`, quarantine files and anything else that stores raw items.
 * The input is never mutated.
 */
export function redactTokens(value: unknown, policy: TokenPolicy, tokenKey: Uint8Array): unknown {
  if (policy === 'keep') return value;
  return walk(value, policy, tokenKey);
}

function walk(value: unknown, policy: 'hash' | 'drop', tokenKey: Uint8Array): unknown {
  if (Array.isArray(value)) return value.map((item) => walk(item, policy, tokenKey));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) {
    if (!isTokenBearingName(key)) setOwn(out, key, walk(member, policy, tokenKey));
    else if (policy === 'hash') setOwn(out, key, hashValue(member, tokenKey));
  }
  return out;
}

function hashValue(value: unknown, tokenKey: Uint8Array): unknown {
  if (value === null || value === undefined) return value;
  return tokenHmac(tokenKey, typeof value === 'string' ? value : canonicalJson(value));
}
