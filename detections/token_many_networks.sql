-- One token used from at least {{threshold}} client networks (IPv4 /24, IPv6 /48) within any
-- {{window_seconds}} seconds: one row per session that completes such a window.
WITH s AS (
  SELECT token_hmac, client_network, session_id, record_id, start_time
  FROM {{sessions}} x WHERE token_hmac IS NOT NULL AND client_canon IS NOT NULL
)
SELECT a.token_hmac AS entity, a.token_hmac, CAST(NULL AS varchar) AS client_network,
  CAST(NULL AS varchar) AS session_id, min(b.start_time) AS first_seen, a.start_time AS last_seen,
  count(DISTINCT b.client_network) AS hits, array_agg(DISTINCT b.record_id) AS record_ids
FROM s a
JOIN s b ON b.token_hmac = a.token_hmac AND b.start_time <= a.start_time
  AND date_diff('second', b.start_time, a.start_time) < {{window_seconds}}
GROUP BY a.token_hmac, a.session_id, a.start_time
HAVING count(DISTINCT b.client_network) >= {{threshold}}
