import { describe, expect, it } from 'vitest';
import { loadRules } from '../../lib/analytics/detect/loadRules.ts';
import { ATTACK_TECHNIQUES } from '../../lib/analytics/ocsf/attackIds.ts';
import { attackOf, attacksOf } from '../../lib/analytics/ocsf/attackOf.ts';
import { stripNulls } from '../../lib/analytics/ocsf/stripNulls.ts';
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
