import { describe, expect, it } from 'vitest';
import { deliverFinding } from '../../lib/analytics/detect/deliverFinding.ts';
import type { Finding } from '../../lib/analytics/detect/finding.ts';
import { memoryFindingEvents } from '../../lib/analytics/detect/findingEvents.ts';
import { MESSAGE_RECORD_SAMPLE, SNS_MESSAGE_LIMIT } from '../../lib/analytics/detect/findingMessage.ts';
import { loadRules } from '../../lib/analytics/detect/loadRules.ts';

const rules = await loadRules();
const rule = rules.find((r) => r.id === 'udp_tunnel');
if (!rule) throw new Error('udp_tunnel rule missing');

/** A finding of `n` records whose ids alone are far over SNS's limit (3,000 × ~100 bytes). */
function bigFinding(n: number, entity = 'tok-big'): Finding {
  const at = new Date('2026-03-02T01:00:00Z');
  return {
    entity,
    token_hmac: 'ab'.repeat(32),
    client_network: '198.51.100.0/24',
    session_id: null,
    first_seen: at,
    last_seen: new Date(at.getTime() + n * 5_000),
    hits: n,
    record_ids: Array.from({ length: n }, (_, i) => `${'r'.repeat(90)}-${String(i).padStart(6, '0')}`),
    finding_id: 'f'.repeat(32),
    rule_id: rule?.id ?? '',
    rule_uid: rule?.uid ?? '',
    title: rule?.title ?? '',
    severity: rule?.level ?? 'high',
    source: 'scheduled',
    dedupe_key: `udp_tunnel|token_hmac=${'ab'.repeat(32)}`,
    detected_at: at,
    updated_at: at,
    revision: 0,
    record_count: n,
    dt: '2026-03-02',
  };
}

/** What `deliverFinding` publishes for a new incident: each published message's bytes. */
async function published(f: Finding): Promise<{ bytes: number; message: Record<string, unknown> }[]> {
  const out: { bytes: number; message: Record<string, unknown> }[] = [];
  await deliverFinding({
    publish: async (_subject, message) => {
      out.push({ bytes: Buffer.byteLength(message), message: JSON.parse(message) });
    },
    events: memoryFindingEvents(),
  })(f, rule as NonNullable<typeof rule>, 'new');
  return out;
}

describe('findingMessage (as deliverFinding publishes it)', () => {
  it.each([
    ['3,000 records (ids alone ~300 KB)', bigFinding(3_000)],
    ['3,000 records and a 200 KB entity', bigFinding(3_000, 'e'.repeat(200_000))],
  ])('keeps the SNS message under 256 KB for %s, naming every record by count and SQL', async (_, f) => {
    expect(f.record_ids.join('","').length).toBeGreaterThan(SNS_MESSAGE_LIMIT);
    const [sent, ...more] = await published(f);
    expect(more).toEqual([]);
    expect(sent?.bytes).toBeLessThan(SNS_MESSAGE_LIMIT);
    expect(sent?.message.record_count).toBe(f.record_count);
    const sample = sent?.message.record_ids_sample as string[];
    expect(sample.length).toBeGreaterThan(0);
    expect(sample.length).toBeLessThanOrEqual(MESSAGE_RECORD_SAMPLE);
    expect(f.record_ids.slice(0, sample.length)).toEqual(sample);
    expect(sent?.message.rows_sql).toMatch(/^SELECT \* FROM /);
  });
});
