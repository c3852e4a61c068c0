-- A token whose first session falls in the window, against a baseline of {{baseline_days}} days before it.
WITH per_token AS (
  SELECT token_hmac, min(dt) AS first_dt, min(start_time) AS first_seen, max(start_time) AS last_seen,
    count(*) AS hits, array_agg(record_id) AS record_ids
  FROM tunnel_sessions
  WHERE dt >= '{{baseline_since}}' AND dt <= '{{until}}' AND token_hmac IS NOT NULL
  GROUP BY token_hmac
),
archive AS (
  SELECT min(dt) AS oldest FROM tunnel_sessions WHERE dt >= '{{baseline_since}}' AND dt <= '{{until}}'
)
SELECT p.token_hmac AS entity, p.token_hmac, CAST(NULL AS varchar) AS client_network,
  CAST(NULL AS varchar) AS session_id, p.first_seen, p.last_seen, p.hits, p.record_ids
FROM per_token p CROSS JOIN archive a
WHERE p.first_dt >= '{{since}}' AND a.oldest < '{{since}}'
