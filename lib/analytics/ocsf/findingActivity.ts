/**
 * The activity a detection saw: the columns every rule's SQL returns about what it matched (docs/detections.md),
 * which a finding carries and the OCSF mapping reads. lib/analytics/detect's `RuleHit` and the mapping's input both
 * extend it, so the two cannot drift apart.
 */
export interface FindingActivity {
  entity: string;
  token_hmac: string | null;
  client_network: string | null;
  session_id: string | null;
  first_seen: Date;
  last_seen: Date;
  hits: number;
}
