-- At least {{threshold}} sessions of one token open at the same instant (at some session's start); a
-- session without an end is open now.
WITH s AS (
  SELECT token_hmac, session_id, record_id, start_time, end_at FROM {{sessions}} x WHERE token_hmac IS NOT NULL
)
SELECT a.token_hmac AS entity, a.token_hmac, CAST(NULL AS varchar) AS client_network,
  CAST(NULL AS varchar) AS session_id, min(b.start_time) AS first_seen, a.start_time AS last_seen,
  count(DISTINCT b.session_id) AS hits, array_agg(DISTINCT b.record_id) AS record_ids
FROM s a
JOIN s b ON b.token_hmac = a.token_hmac AND b.start_time <= a.start_time AND b.end_at > a.start_time
GROUP BY a.token_hmac, a.session_id, a.start_time
HAVING count(DISTINCT b.session_id) >= {{threshold}}
