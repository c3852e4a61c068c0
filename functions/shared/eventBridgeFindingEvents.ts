import { EventBridgeClient, PutEventsCommand, type PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import type { FindingEvents } from '../../lib/analytics/detect/findingEvents.ts';
import { ArchiverError } from '../../lib/foundation/errors/archiverError.ts';

/** How PutEvents is sent: the request's JSON body in, the HTTP status and body out (tests pass a recorder). */
export type PutEventsSender = (body: string) => Promise<{ status: number; text: string }>;

/** PutEvents on the default bus through the SDK's EventBridge client (the Lambda's credentials and region). */
export function sdkPutEvents(client: EventBridgeClient = new EventBridgeClient({})): PutEventsSender {
  return async (body) => {
    const { Entries } = JSON.parse(body) as { Entries: (PutEventsRequestEntry & { Time: number })[] };
    try {
      const out = await client.send(
        new PutEventsCommand({ Entries: Entries.map((e) => ({ ...e, Time: new Date(e.Time * 1000) })) }),
      );
      return {
        status: out.$metadata.httpStatusCode ?? 200,
        text: JSON.stringify({ FailedEntryCount: out.FailedEntryCount ?? 0, Entries: out.Entries ?? [] }),
      };
    } catch (error) {
      const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
      return {
        status: status ?? 500,
        text: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
      };
    }
  };
}

/**
 * The findings' events port on EventBridge's default bus (PutEvents, at most 10 entries a call). A
 * call that fails, or any entry EventBridge refused, is `STORE_FAILED`: the delivery stays in the
 * outbox and the next evaluation puts it again.
 */
export function eventBridgeFindingEvents(send: PutEventsSender): FindingEvents {
  return {
    async put(events) {
      for (let i = 0; i < events.length; i += 10) {
        const batch = events.slice(i, i + 10);
        const body = JSON.stringify({
          Entries: batch.map((e) => ({
            Source: e.source,
            DetailType: e.detailType,
            Detail: e.detail,
            Time: Math.floor(e.time.getTime() / 1000),
          })),
        });
        const res = await send(body);
        const parsed = (() => {
          try {
            return JSON.parse(res.text) as { FailedEntryCount?: number };
          } catch {
            return {};
          }
        })();
        if (res.status !== 200 || (parsed.FailedEntryCount ?? 0) > 0)
          throw new ArchiverError(
            'STORE_FAILED',
            `EventBridge PutEvents failed (${res.status}): ${res.text.slice(0, 300)}`,
          );
      }
    },
  };
}
