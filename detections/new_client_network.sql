-- A token seen from a client network its {{baseline_days}}-day baseline never showed (tokens with a baseline only).
WITH recent AS (
  SELECT token_hmac, {{client_network}} AS client_network, record_id, start_time
  FROM tunnel_sessions
  WHERE dt >= '{{since}}' AND dt <= '{{until}}' AND token_hmac IS NOT NULL AND client_address IS NOT NULL
),
baseline AS (
  SELECT DISTINCT token_hmac, {{client_network}} AS client_network
  FROM tunnel_sessions
  WHERE dt >= '{{baseline_since}}' AND dt < '{{since}}' AND token_hmac IS NOT NULL AND client_address IS NOT NULL
),
known AS (SELECT DISTINCT token_hmac FROM baseline)
SELECT r.token_hmac || ' ' || r.client_network AS entity, r.token_hmac, r.client_network,
  CAST(NULL AS varchar) AS session_id, min(r.start_time) AS first_seen, max(r.start_time) AS last_seen,
  count(*) AS hits, array_agg(r.record_id) AS record_ids
FROM recent r
JOIN known k ON k.token_hmac = r.token_hmac
LEFT JOIN baseline b ON b.token_hmac = r.token_hmac AND b.client_network = r.client_network
WHERE b.token_hmac IS NULL
GROUP BY r.token_hmac, r.client_network
HAVING count(*) >= {{threshold}}
