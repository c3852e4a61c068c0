import { describe, expect, it } from 'vitest';
import { loadRules } from '../../lib/detect/loadRules.ts';
import { ATTACK_TECHNIQUES } from '../../lib/ocsf/attackIds.ts';
import { attackOf, attacksOf } from '../../lib/ocsf/attackOf.ts';
import { findingsOcsfSql } from '../../lib/ocsf/findingsOcsfSql.ts';
import { OCSF_1_8 } from '../../lib/ocsf/ocsfProfile.ts';
import { stripNulls } from '../../lib/ocsf/stripNulls.ts';
import { toOcsfDetectionFinding } from '../../lib/ocsf/toOcsfDetectionFinding.ts';
import { ATHENA_MACROS, DUCKDB_SESSION } from '../../lib/sql/dialect.ts';
import { duckdbSpelling } from '../../lib/sql/duckdbSpelling.ts';
import { ocsfErrors } from './ocsfSchemas.ts';

const SESSION_EVENT = {
  activity_id: 1,
  category_uid: 4,
  class_uid: 4014,
  type_uid: 401401,
  severity_id: 1,
  time: 1_795_000_000_000,
  session: { uid: 's-1', credential_uid: 'hmac' },
  user: { uid: 'a@example.com' },
  metadata: { uid: 's-1:open', version: '1.8.0', product: { name: 'Pinggy' } },
};

describe('the OCSF schemas the tests validate with', () => {
  it('accept a minimal valid Tunnel Activity event', () => {
    expect(ocsfErrors('1.8.0-tunnel_activity', SESSION_EVENT)).toBe('');
  });

  it.each([
    ['without severity_id', (e: Record<string, unknown>) => delete e.severity_id, /severity_id/],
    [
      'with a dt column',
      (e: Record<string, unknown>) => Object.assign(e, { dt: '2026-11-20' }),
      /additional/,
    ],
    ['with a null', (e: Record<string, unknown>) => Object.assign(e, { duration: null }), /duration/],
    [
      'with an ISO time',
      (e: Record<string, unknown>) => Object.assign(e, { time: '2026-11-20T10:00:00Z' }),
      /time/,
    ],
    [
      'with a user that has no uid, name or account',
      (e: Record<string, unknown>) => Object.assign(e, { user: { email_addr: 'a@example.com' } }),
      /user/,
    ],
    [
      'with a type_uid that is not class*100 + activity',
      (e: Record<string, unknown>) => Object.assign(e, { type_uid: 401400 }),
      /type_uid/,
    ],
  ])('reject an event %s', (_, change, message) => {
    const event = structuredClone(SESSION_EVENT) as Record<string, unknown>;
    change(event);
    expect(ocsfErrors('1.8.0-tunnel_activity', event)).toMatch(message);
  });
});

describe('stripNulls', () => {
  it('leaves out nulls at any depth, and objects or arrays that become empty; longs become numbers', () => {
    expect(
      stripNulls({ a: null, b: { c: null }, d: [null, { e: 1n }], f: [], g: 'x', h: 0, i: false }),
    ).toEqual({ d: [{ e: 1 }], g: 'x', h: 0, i: false });
  });
});

describe('attackOf', () => {
  it.each([
    [
      'T1572',
      {
        tactic: { uid: 'TA0011', name: 'Command and Control' },
        technique: { uid: 'T1572', name: 'Protocol Tunneling' },
      },
    ],
    [
      'T1583.001',
      {
        tactic: { uid: 'TA0042', name: 'Resource Development' },
        technique: { uid: 'T1583', name: 'Acquire Infrastructure' },
        sub_technique: { uid: 'T1583.001', name: 'Domains' },
      },
    ],
    ['T9999', { technique: { uid: 'T9999' } }],
    ['T9999.002', { technique: { uid: 'T9999' }, sub_technique: { uid: 'T9999.002', name: 'T9999.002' } }],
  ])('maps %s', (id, attack) => {
    expect(attackOf(id)).toEqual(attack);
  });

  it('knows every technique the rules name, each with its tactic', async () => {
    for (const rule of await loadRules())
      for (const [i, attack] of attacksOf(rule.attack).entries()) {
        // The first technique always belongs to the rule's tactic (the rule schema checks it).
        if (i === 0) expect(attack.tactic?.uid, rule.id).toBe(rule.attack.tactic);
        const id = attack.sub_technique?.uid ?? attack.technique.uid;
        expect(ATTACK_TECHNIQUES[id]?.tactics, `${rule.id} ${id}`).toContain(attack.tactic?.uid);
        expect(attack.technique.name, rule.id).toBeDefined();
      }
  });
});

describe('duckdbSpelling', () => {
  it('rewrites Trino array types, nested ones too, and nothing else', () => {
    expect(
      duckdbSpelling('CAST(x AS array(row("a" array(varchar), "b" integer))), array_agg(y), ARRAY[1]'),
    ).toBe('CAST(x AS row("a" varchar[], "b" integer)[]), array_agg(y), ARRAY[1]');
  });
});

describe('toOcsfDetectionFinding (the SNS form)', () => {
  const finding = {
    finding_id: 'f'.repeat(32),
    rule_id: 'domain_not_allowlisted',
    title: 'Tunnel on a domain that is not on the allowlist',
    severity: 'medium' as const,
    source: 'scheduled',
    entity: 'exfil.attacker.example',
    token_hmac: 'hmac',
    client_network: null,
    session_id: 's-1',
    first_seen: new Date('2026-11-20T10:00:00Z'),
    last_seen: new Date('2026-11-20T10:05:00Z'),
    hits: 2,
    record_ids: [] as string[],
    detected_at: new Date('2026-11-20T10:10:00.123Z'),
  };

  it('validates against OCSF 1.8.0 Detection Finding', async () => {
    const rule = (await loadRules()).find((r) => r.id === finding.rule_id);
    expect(ocsfErrors('1.8.0-detection_finding', toOcsfDetectionFinding(finding, rule as never))).toBe('');
  });

  it("is the findings view's Create event of the same row (one mapping)", async () => {
    const rules = await loadRules();
    const { DuckDBInstance } = await import('@duckdb/node-api');
    const db = await DuckDBInstance.create(':memory:');
    const c = await db.connect();
    try {
      for (const s of [...DUCKDB_SESSION, ...ATHENA_MACROS]) await c.run(s);
      const ts = (d: Date) => `TIMESTAMPTZ '${d.toISOString()}'`;
      await c.run(`CREATE TABLE findings AS SELECT '${finding.finding_id}' AS finding_id, '${finding.rule_id}' AS rule_id,
        '${finding.title}' AS title, 'medium' AS severity, 'scheduled' AS source, '${finding.entity}' AS entity,
        'hmac' AS token_hmac, NULL::VARCHAR AS client_network, 's-1' AS session_id, ${ts(finding.first_seen)} AS first_seen,
        ${ts(finding.last_seen)} AS last_seen, 2 AS hits, []::VARCHAR[] AS record_ids, ${ts(finding.detected_at)} AS detected_at`);
      await c.run(
        'CREATE TABLE history AS SELECT NULL::VARCHAR AS record_id, NULL::VARCHAR AS session_id WHERE false',
      );
      const sql = duckdbSpelling(
        findingsOcsfSql({ findings: 'findings', history: 'history' }, OCSF_1_8, rules),
      );
      const rows = await c.runAndReadAll(`SELECT CAST(to_json(e) AS VARCHAR) AS j FROM (${sql}) e`);
      const fromView = stripNulls(JSON.parse(String(rows.getRowObjectsJson()[0]?.j)));
      const rule = rules.find((r) => r.id === finding.rule_id);
      expect(toOcsfDetectionFinding(finding, rule as never)).toEqual(fromView);
    } finally {
      c.closeSync();
      db.closeSync();
    }
  });
});
