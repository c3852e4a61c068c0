-- Tunnels opened outside working hours ({{workday_start}}:00 to {{workday_end}}:00 in {{time_zone}}).
SELECT token_hmac AS entity, token_hmac, min({{client_network}}) AS client_network,
  CAST(NULL AS varchar) AS session_id, min(start_time) AS first_seen, max(start_time) AS last_seen,
  count(*) AS hits, array_agg(record_id) AS record_ids
FROM tunnel_sessions
WHERE dt >= '{{since}}' AND dt <= '{{until}}' AND token_hmac IS NOT NULL
  AND (hour(start_time AT TIME ZONE '{{time_zone}}') < {{workday_start}}
    OR hour(start_time AT TIME ZONE '{{time_zone}}') >= {{workday_end}})
GROUP BY token_hmac, dt
HAVING count(*) >= {{threshold}}
