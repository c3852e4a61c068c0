-- Tunnels serving a domain outside the allowlist (domain suffixes in the rule's settings).
SELECT domain AS entity, min(token_hmac) AS token_hmac, min({{client_network}}) AS client_network,
  min(session_id) AS session_id, min(start_time) AS first_seen, max(start_time) AS last_seen,
  count(*) AS hits, array_agg(record_id) AS record_ids
FROM tunnel_sessions
CROSS JOIN UNNEST(domains) AS t(domain)
WHERE dt >= '{{since}}' AND dt <= '{{until}}'
  AND NOT regexp_like(lower(domain), '{{allowlist}}')
GROUP BY domain
HAVING count(*) >= {{threshold}}
