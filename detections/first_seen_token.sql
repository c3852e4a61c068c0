-- A token whose first session falls in the days read, against a baseline of {{baseline_days}} days
-- before them (the rule warms up until the archive holds that baseline).
WITH s AS (
  SELECT token_hmac, record_id, start_time, dt FROM {{baseline_sessions}} x WHERE token_hmac IS NOT NULL
),
per_token AS (SELECT token_hmac, min(dt) AS first_dt, min(start_time) AS first_seen FROM s GROUP BY token_hmac)
SELECT p.token_hmac AS entity, p.token_hmac, CAST(NULL AS varchar) AS client_network,
  CAST(NULL AS varchar) AS session_id, p.first_seen, p.first_seen AS last_seen, 1 AS hits,
  array_agg(s.record_id) AS record_ids
FROM per_token p
JOIN s ON s.token_hmac = p.token_hmac AND s.start_time = p.first_seen
WHERE p.first_dt >= '{{since}}'
GROUP BY p.token_hmac, p.first_seen
