-- A token seen from a client network (IPv4 /24, IPv6 /48) that its {{baseline_days}}-day baseline
-- never showed (tokens with a baseline only).
WITH recent AS (
  SELECT token_hmac, client_network, session_id, record_id, start_time
  FROM {{sessions}} x WHERE token_hmac IS NOT NULL AND client_canon IS NOT NULL
),
baseline AS (
  SELECT DISTINCT token_hmac, client_network
  FROM {{baseline_sessions}} y
  WHERE dt < '{{since}}' AND token_hmac IS NOT NULL AND client_canon IS NOT NULL
),
known AS (SELECT DISTINCT token_hmac FROM baseline)
SELECT r.token_hmac || ' ' || r.client_network AS entity, r.token_hmac, r.client_network,
  CAST(NULL AS varchar) AS session_id, min(r.start_time) AS first_seen, max(r.start_time) AS last_seen,
  count(DISTINCT r.session_id) AS hits, array_agg(r.record_id) AS record_ids
FROM recent r
JOIN known k ON k.token_hmac = r.token_hmac
LEFT JOIN baseline b ON b.token_hmac = r.token_hmac AND b.client_network = r.client_network
WHERE b.token_hmac IS NULL
GROUP BY r.token_hmac, r.client_network
HAVING count(DISTINCT r.session_id) >= {{threshold}}
