-- Sessions serving a domain outside the allowlist (domain suffixes in the rule's settings): one row per
-- domain and session.
SELECT t.domain AS entity, min(x.token_hmac) AS token_hmac, min(x.client_network) AS client_network,
  x.session_id, min(x.start_time) AS first_seen, min(x.start_time) AS last_seen, 1 AS hits,
  array_agg(x.record_id) AS record_ids
FROM {{sessions}} x
CROSS JOIN UNNEST(x.domains) AS t(domain)
WHERE NOT regexp_like(lower(t.domain), '{{allowlist}}')
GROUP BY t.domain, x.session_id
