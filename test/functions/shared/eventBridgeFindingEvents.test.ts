import { describe, expect, it } from 'vitest';
import { eventBridgeFindingEvents } from '../../../functions/shared/eventBridgeFindingEvents.ts';
import {
  FINDING_DETAIL_TYPE,
  FINDING_EVENT_SOURCE,
  type FindingEvent,
} from '../../../lib/detect/findingEvents.ts';

const event = (i: number): FindingEvent => ({
  source: FINDING_EVENT_SOURCE,
  detailType: FINDING_DETAIL_TYPE,
  detail: JSON.stringify({ i }),
  time: new Date(Date.UTC(2026, 2, 1, 0, 0, i)),
});

describe('eventBridgeFindingEvents', () => {
  it('puts entries in calls of at most ten, as PutEvents takes them', async () => {
    const bodies: { Entries: Record<string, unknown>[] }[] = [];
    const events = eventBridgeFindingEvents(async (body) => {
      bodies.push(JSON.parse(body));
      return { status: 200, text: '{"FailedEntryCount":0,"Entries":[]}' };
    });
    await events.put(Array.from({ length: 23 }, (_, i) => event(i)));
    expect(bodies.map((b) => b.Entries.length)).toEqual([10, 10, 3]);
    expect(bodies[0]?.Entries[1]).toEqual({
      Source: FINDING_EVENT_SOURCE,
      DetailType: FINDING_DETAIL_TYPE,
      Detail: '{"i":1}',
      Time: Date.UTC(2026, 2, 1, 0, 0, 1) / 1000,
    });
  });

  it('fails when EventBridge refuses the call or any entry (the outbox keeps the delivery)', async () => {
    const refused = eventBridgeFindingEvents(async () => ({ status: 400, text: 'ValidationException' }));
    await expect(refused.put([event(1)])).rejects.toMatchObject({ code: 'STORE_FAILED' });
    const partly = eventBridgeFindingEvents(async () => ({ status: 200, text: '{"FailedEntryCount":1}' }));
    await expect(partly.put([event(1)])).rejects.toMatchObject({ code: 'STORE_FAILED' });
  });
});
