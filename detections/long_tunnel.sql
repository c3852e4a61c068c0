-- Sessions open for at least {{threshold}} hours, ended or still open (open until now); one row per
-- session, keyed by token and start as the live rule keys an open tunnel.
SELECT session_id AS entity, coalesce(token_hmac, virtual_token_hmac) AS token_hmac,
  min(client_network) AS client_network, session_id, start_time AS first_seen, max(end_at) AS last_seen,
  1 AS hits, array_agg(record_id) AS record_ids
FROM {{sessions}} x
WHERE date_diff('second', start_time, end_at) >= {{threshold}} * 3600
GROUP BY session_id, token_hmac, virtual_token_hmac, start_time
