-- UDP tunnels (mode_udp set): rarely needed by a web or SSH workflow, often by VPNs and games.
SELECT token_hmac AS entity, token_hmac, min({{client_network}}) AS client_network,
  min(session_id) AS session_id, min(start_time) AS first_seen, max(start_time) AS last_seen,
  count(*) AS hits, array_agg(record_id) AS record_ids
FROM tunnel_sessions
WHERE dt >= '{{since}}' AND dt <= '{{until}}' AND token_hmac IS NOT NULL
  AND mode_udp = 'udp'
GROUP BY token_hmac
HAVING count(*) >= {{threshold}}
