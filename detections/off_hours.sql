-- Sessions opened outside working time in {{time_zone}}: not on a working day ({{workdays}}), on a
-- holiday, or outside {{workday_start}}:00 to {{workday_end}}:00. One row per session.
SELECT token_hmac AS entity, token_hmac, min(client_network) AS client_network, session_id,
  start_time AS first_seen, start_time AS last_seen, 1 AS hits, array_agg(record_id) AS record_ids
FROM (
  SELECT x.*, x.start_time AT TIME ZONE '{{time_zone}}' AS local_start
  FROM {{sessions}} x WHERE x.token_hmac IS NOT NULL
) s
WHERE NOT (day_of_week(local_start) IN ({{workdays}})
    AND date_format(local_start, '%Y-%m-%d') NOT IN ({{holidays}})
    AND hour(local_start) >= {{workday_start}} AND hour(local_start) < {{workday_end}})
GROUP BY token_hmac, session_id, start_time
