-- One client address (canonical) used by at least {{threshold}} different tokens within any
-- {{window_seconds}} seconds: one row per session that completes such a window.
WITH s AS (
  SELECT client_canon, client_network, token_hmac, record_id, session_id, start_time
  FROM {{sessions}} x WHERE token_hmac IS NOT NULL AND client_canon IS NOT NULL
)
SELECT a.client_canon AS entity, CAST(NULL AS varchar) AS token_hmac, min(a.client_network) AS client_network,
  CAST(NULL AS varchar) AS session_id, min(b.start_time) AS first_seen, a.start_time AS last_seen,
  count(DISTINCT b.token_hmac) AS hits, array_agg(DISTINCT b.record_id) AS record_ids
FROM s a
JOIN s b ON b.client_canon = a.client_canon AND b.start_time <= a.start_time
  AND date_diff('second', b.start_time, a.start_time) < {{window_seconds}}
GROUP BY a.client_canon, a.session_id, a.start_time
HAVING count(DISTINCT b.token_hmac) >= {{threshold}}
