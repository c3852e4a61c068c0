import { describe, expect, it } from 'vitest';
import { dayOfRecords, ScriptedUpstream } from '../../devkit/scriptedUpstream.ts';
import { ManualClock } from '../../lib/foundation/clock/clock.ts';

const DAY = '2026-11-10';

describe('ScriptedUpstream answers as a parsed response does', () => {
  it('gives fresh items each answer: equal to the script’s, never its objects or their arrays', async () => {
    const records = dayOfRecords(DAY, 5);
    const api = new ScriptedUpstream({
      clock: new ManualClock('2026-11-20T12:00:00Z'),
      days: new Map([[DAY, records]]),
      reshuffle: false,
    });
    const first = await api.historyPage(DAY, DAY, 0, 10);
    const second = await api.historyPage(DAY, DAY, 0, 10);
    expect(first.content).toEqual(records);
    first.content.forEach((item, i) => {
      const own = records[i] as { domains: unknown };
      expect(item).not.toBe(own);
      expect(item.domains).not.toBe(own.domains);
      expect(Object.keys(item)).toEqual(Object.keys(own));
      expect(item).not.toBe(second.content[i]);
    });
  });
});
