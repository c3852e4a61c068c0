-- One token used from at least {{threshold}} client networks (IPv4 /24, IPv6 /48) on one day.
WITH used AS (
  SELECT token_hmac, dt, record_id, start_time, {{client_network}} AS client_network
  FROM tunnel_sessions
  WHERE dt >= '{{since}}' AND dt <= '{{until}}'
    AND token_hmac IS NOT NULL AND client_address IS NOT NULL
)
SELECT token_hmac AS entity, token_hmac, CAST(NULL AS varchar) AS client_network,
  CAST(NULL AS varchar) AS session_id, min(start_time) AS first_seen, max(start_time) AS last_seen,
  count(DISTINCT client_network) AS hits, array_agg(record_id) AS record_ids
FROM used
GROUP BY token_hmac, dt
HAVING count(DISTINCT client_network) >= {{threshold}}
