import { describe, expect, it } from 'vitest';
import { eventBridgeFindingEvents } from '../../../functions/shared/eventBridgeFindingEvents.ts';
import {
  FINDING_DETAIL_TYPE,
  FINDING_EVENT_SOURCE,
  type FindingEvent,
} from '../../../lib/analytics/detect/findingEvents.ts';

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

describe('sdkPutEvents', () => {
  it('sends PutEvents through the SDK client to the endpoint it is given, and reports refused entries', async () => {
    const { createServer } = await import('node:http');
    const { EventBridgeClient } = await import('@aws-sdk/client-eventbridge');
    const { sdkPutEvents } = await import('../../../functions/shared/eventBridgeFindingEvents.ts');
    const seen: { target: string | undefined; body: { Entries: { Source: string; Detail: string }[] } }[] =
      [];
    let failed = 0;
    const server = createServer((req, res) => {
      let text = '';
      req.on('data', (c) => {
        text += c;
      });
      req.on('end', () => {
        seen.push({ target: req.headers['x-amz-target'] as string | undefined, body: JSON.parse(text) });
        res.setHeader('content-type', 'application/x-amz-json-1.1');
        res.end(JSON.stringify({ FailedEntryCount: failed, Entries: [{ EventId: 'e-1' }] }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const address = server.address() as { port: number };
      const client = new EventBridgeClient({
        region: 'us-east-1',
        endpoint: `http://127.0.0.1:${address.port}`,
        credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
      });
      const events = eventBridgeFindingEvents(sdkPutEvents(client));
      await events.put([event(1), event(2)]);
      expect(seen[0]?.target).toBe('AWSEvents.PutEvents');
      expect(seen[0]?.body.Entries.map((e) => [e.Source, e.Detail])).toEqual([
        [FINDING_EVENT_SOURCE, '{"i":1}'],
        [FINDING_EVENT_SOURCE, '{"i":2}'],
      ]);
      failed = 1;
      await expect(events.put([event(3)])).rejects.toMatchObject({ code: 'STORE_FAILED' });
      client.destroy();
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
