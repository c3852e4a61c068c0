import { type ActiveObservations, liveJoinTokenHmac } from '../../archive/index.ts';
import { toCandidates } from './evaluateRules.ts';
import type { Finding, RuleHit } from './finding.ts';
import type { DetectionRule, SettingValue } from './ruleSchema.ts';
import { type DetectionSettings, effectiveSettings, NO_OVERRIDES, ruleEnabled } from './ruleSettings.ts';

type LivePredicate = (
  observations: ActiveObservations,
  observedAt: Date,
  settings: Readonly<Record<string, SettingValue>>,
) => RuleHit[];

const HOUR_MS = 3_600_000;

/**
 * The TypeScript side of rules marked `live`, keyed by rule id: each reads the same settings as the
 * rule's SQL (its yml `threshold` and settings, with the deployment's overrides).
 */
export const LIVE_PREDICATES: Readonly<Record<string, LivePredicate>> = {
  /** Open sessions whose age reached `threshold` hours: the SQL's `date_diff(start, end) >= threshold h`. */
  long_tunnel: (observations, observedAt, settings) => {
    const limitMs = Number(settings.threshold) * HOUR_MS;
    const hits: RuleHit[] = [];
    for (const { fields } of Object.values(observations.sessions)) {
      const opened = new Date(fields.creation_time);
      if (observedAt.getTime() - opened.getTime() < limitMs) continue;
      hits.push({
        entity: fields.id,
        // The token and the start are the incident's key, as the SQL's `coalesce(token_hmac, virtual_token_hmac)`
        // and `start_time`: a tunnel alerted live and later seen in history is one incident. The live row's
        // token is its join token (the token, or the virtual token less its `-<port>`), which history names.
        token_hmac: liveJoinTokenHmac(fields),
        client_network: null,
        session_id: fields.id,
        first_seen: opened,
        last_seen: observedAt,
        hits: 1,
        record_ids: [],
      });
    }
    return hits;
  },
};

/**
 * Findings of the `live` rules on one active-list snapshot (the observations after its diff): what
 * the snapshot function calls after each snapshot, so a tunnel open past the limit alerts within one
 * snapshot period rather than at the next scheduled query (after it ends).
 */
export function evaluateLiveRules(
  observations: ActiveObservations,
  observedAt: Date,
  rules: readonly DetectionRule[],
  overrides: DetectionSettings = NO_OVERRIDES,
): Finding[] {
  const out: Finding[] = [];
  for (const rule of rules) {
    const predicate = LIVE_PREDICATES[rule.id];
    if (!rule.live || predicate === undefined || !ruleEnabled(rule, overrides)) continue;
    const settings = effectiveSettings(rule, overrides);
    const exempt = new Set((Array.isArray(settings.exempt_tokens) ? settings.exempt_tokens : []).map(String));
    const hits = predicate(observations, observedAt, settings).filter((h) => !exempt.has(h.token_hmac ?? ''));
    out.push(...toCandidates(rule, hits, observedAt, 'live'));
  }
  return out;
}
