-- One client address used by at least {{threshold}} different tokens on one day.
SELECT client_address AS entity, CAST(NULL AS varchar) AS token_hmac,
  min({{client_network}}) AS client_network, CAST(NULL AS varchar) AS session_id,
  min(start_time) AS first_seen, max(start_time) AS last_seen, count(DISTINCT token_hmac) AS hits,
  array_agg(record_id) AS record_ids
FROM tunnel_sessions
WHERE dt >= '{{since}}' AND dt <= '{{until}}' AND token_hmac IS NOT NULL AND client_address IS NOT NULL
GROUP BY client_address, dt
HAVING count(DISTINCT token_hmac) >= {{threshold}}
