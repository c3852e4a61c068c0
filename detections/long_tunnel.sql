-- Sessions that stayed open for at least {{threshold}} hours (history; the live predicate covers open ones).
SELECT session_id AS entity, min(token_hmac) AS token_hmac, min({{client_network}}) AS client_network,
  session_id, min(start_time) AS first_seen, max(end_time) AS last_seen, count(*) AS hits,
  array_agg(record_id) AS record_ids
FROM tunnel_sessions
WHERE dt >= '{{since}}' AND dt <= '{{until}}'
  AND end_time IS NOT NULL
  AND date_diff('second', start_time, end_time) >= {{threshold}} * 3600
GROUP BY session_id
