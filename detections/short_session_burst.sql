-- At least {{threshold}} sessions shorter than {{max_seconds}} s on one token within any
-- {{window_seconds}} seconds: one row per session that completes such a window.
WITH s AS (
  SELECT token_hmac, client_network, session_id, record_id, start_time
  FROM {{sessions}} x
  WHERE token_hmac IS NOT NULL AND end_time IS NOT NULL
    AND date_diff('second', start_time, end_time) < {{max_seconds}}
)
SELECT a.token_hmac AS entity, a.token_hmac, min(a.client_network) AS client_network,
  CAST(NULL AS varchar) AS session_id, min(b.start_time) AS first_seen, a.start_time AS last_seen,
  count(DISTINCT b.session_id) AS hits, array_agg(DISTINCT b.record_id) AS record_ids
FROM s a
JOIN s b ON b.token_hmac = a.token_hmac AND b.start_time <= a.start_time
  AND date_diff('second', b.start_time, a.start_time) < {{window_seconds}}
GROUP BY a.token_hmac, a.session_id, a.start_time
HAVING count(DISTINCT b.session_id) >= {{threshold}}
