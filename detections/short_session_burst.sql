-- At least {{threshold}} sessions shorter than {{max_seconds}} s on one token within one hour.
SELECT token_hmac AS entity, token_hmac, min({{client_network}}) AS client_network,
  CAST(NULL AS varchar) AS session_id, min(start_time) AS first_seen, max(start_time) AS last_seen,
  count(*) AS hits, array_agg(record_id) AS record_ids
FROM tunnel_sessions
WHERE dt >= '{{since}}' AND dt <= '{{until}}' AND token_hmac IS NOT NULL AND end_time IS NOT NULL
  AND date_diff('second', start_time, end_time) < {{max_seconds}}
GROUP BY token_hmac, date_trunc('hour', start_time)
HAVING count(*) >= {{threshold}}
