-- At least {{threshold}} sessions of one token open at the same instant (at some session's start).
WITH s AS (
  SELECT token_hmac, record_id, start_time, end_time
  FROM tunnel_sessions
  WHERE dt >= '{{since}}' AND dt <= '{{until}}' AND token_hmac IS NOT NULL AND end_time IS NOT NULL
),
peaks AS (
  SELECT a.token_hmac, a.record_id, a.start_time, count(*) AS open_now
  FROM s a
  JOIN s b ON b.token_hmac = a.token_hmac AND b.start_time <= a.start_time AND b.end_time > a.start_time
  GROUP BY a.token_hmac, a.record_id, a.start_time
)
SELECT token_hmac AS entity, token_hmac, CAST(NULL AS varchar) AS client_network,
  CAST(NULL AS varchar) AS session_id, min(start_time) AS first_seen, max(start_time) AS last_seen,
  max(open_now) AS hits, array_agg(record_id) AS record_ids
FROM peaks
WHERE open_now >= {{threshold}}
GROUP BY token_hmac
