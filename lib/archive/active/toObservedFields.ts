import { canonicalJson } from '../records/canonicalJson.ts';
import { liveJoinToken } from '../records/liveJoinToken.ts';
import { loneSurrogateAt } from '../records/loneSurrogateAt.ts';
import { redactTokens } from '../records/redactTokens.ts';
import { type ActiveSession, activeSessionSchema } from '../records/schemas.ts';
import { sha256Hex } from '../records/sha256Hex.ts';
import { toEpochMs } from '../records/toEpochMs.ts';
import { tokenHmac } from '../records/tokenHmac.ts';
import type { ActiveRowOptions, ObservedFields } from './activeRow.ts';

const NAMED: ReadonlySet<string> = new Set(Object.keys(activeSessionSchema.shape));

/**
 * Maps one validated session of the active list to the fields a row records, under the token policy
 * (the one history rows follow: raw `token` and `virtual_token` only under `keep`, their HMACs under `keep`
 * and `hash`, and `extra_json` through `redactTokens`; `token_name` and `virtual_token_name` are names).
 * Names the seed types as `unknown` (a non-string name) are kept as their JSON text rather than lost, and
 * so is a string that holds a lone surrogate (`storable`). Integers arrive without `-0` (the wire schema).
 */
export function toObservedFields(session: ActiveSession, opts: ActiveRowOptions): ObservedFields {
  const keepRaw = opts.tokenPolicy === 'keep';
  const keepHash = opts.tokenPolicy !== 'drop';
  const token = textOrNull(session.token);
  const virtualToken = session.virtualToken === '' ? null : session.virtualToken;
  const joinToken = liveJoinToken(token, virtualToken, session.port);
  return {
    id: storable(session.id),
    user_id: session.userId,
    token_id: session.tokenId,
    token: keepRaw ? token : null,
    token_hmac: keepHash && token !== null ? tokenHmac(opts.tokenKey, token) : null,
    token_name: textOrNull(session.tokenName),
    virtual_token: keepRaw && virtualToken !== null ? storable(virtualToken) : null,
    virtual_token_hmac: keepHash && virtualToken !== null ? tokenHmac(opts.tokenKey, virtualToken) : null,
    virtual_token_name: textOrNull(session.virtualTokenName),
    subdomain: storable(session.subdomain),
    customdomain: textOrNull(session.customdomain),
    mode: storable(session.mode),
    mode_udp: storable(session.modeUdp),
    port: session.port,
    creation_time: new Date(toEpochMs(session.creationTimestamp)),
    last_update_time: new Date(toEpochMs(session.lastUpdateTimestamp)),
    extra_json: extraJson(session, opts, [token, virtualToken, joinToken]),
    join_token_hmac: keepHash && joinToken !== null ? tokenHmac(opts.tokenKey, joinToken) : null,
  };
}

/**
 * SHA-256 (hex) of the observed fields, times as epoch ms. Every field counts, `last_update_time`
 * included: an upstream heartbeat that only moves it is a `changed` row (docs/data-contract.md says so).
 */
export function contentHash(fields: ObservedFields): string {
  return sha256Hex(
    canonicalJson({
      ...fields,
      creation_time: fields.creation_time.getTime(),
      last_update_time: fields.last_update_time.getTime(),
    }),
  );
}

function textOrNull(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  return typeof value === 'string' ? storable(value) : canonicalJson(value);
}

/**
 * A string as a row stores it: itself, or, when it holds a lone surrogate (see `loneSurrogateAt`), its
 * JSON text (`"a\\ud800"`), which UTF-8 holds and which reads back to the exact value sent, as a non-string
 * name is kept.
 */
function storable(text: string): string {
  return loneSurrogateAt(text) < 0 ? text : JSON.stringify(text);
}

/**
 * The fields the seed does not name, under the token policy, as history's `extra_json` is
 * (`redactTokens`): a token-bearing name (`token`, `secret`, `apiKey`...) at any depth is hashed or
 * dropped, and the session's own tokens quoted in any other string are replaced, whatever else is kept.
 */
function extraJson(
  session: ActiveSession,
  opts: ActiveRowOptions,
  secrets: readonly (string | null)[],
): string | null {
  const extra: Record<string, unknown> = {};
  let any = false;
  for (const [key, value] of Object.entries(session)) {
    if (NAMED.has(key)) continue;
    extra[key] = value;
    any = true;
  }
  if (!any) return null;
  const redacted = redactTokens(extra, opts.tokenPolicy, opts.tokenKey, secrets) as Record<string, unknown>;
  return Object.keys(redacted).length === 0 ? null : canonicalJson(redacted);
}
