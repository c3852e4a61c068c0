-- UDP tunnels (mode_udp set): rarely needed by a web or SSH workflow, often by VPNs and games. One
-- row per session.
SELECT token_hmac AS entity, token_hmac, min(client_network) AS client_network, session_id,
  start_time AS first_seen, start_time AS last_seen, 1 AS hits, array_agg(record_id) AS record_ids
FROM {{sessions}} x
WHERE token_hmac IS NOT NULL AND mode_udp = 'udp'
GROUP BY token_hmac, session_id, start_time
