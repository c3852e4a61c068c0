import { describe, expect, it } from 'vitest';
import { startEmulator } from '../../devkit/startEmulator.ts';
import { startEmulator as startUserEmulator } from '../../lib/archive/emulator/startEmulator.ts';
import { get, historyPath } from '../emulator/emulatorKit.ts';

describe('startEmulator (dev kit)', () => {
  it('the emulator a user starts has no test hooks; the dev kit adds them from outside', async () => {
    const user = await startUserEmulator({ seed: 3 });
    const test = await startEmulator({ seed: 3 });
    try {
      expect(Object.keys(user).sort()).toEqual(['clock', 'close', 'port', 'url']);
      expect(Object.keys(test).sort()).toEqual(
        ['active', 'clock', 'close', 'poison', 'port', 'setFaults', 'stats', 'truth', 'url'].sort(),
      );
      // The hooks read and steer the emulator the test talks to: what it serves is what `truth` says.
      const day = test.clock.now().toISOString().slice(0, 10);
      const served = await get(test.url, historyPath(day, day, { size: 2000 }));
      expect(served.status).toBe(200);
      expect((JSON.parse(served.text) as { content: unknown[] }).content).toHaveLength(
        test.truth(day).length,
      );
      expect(test.stats().requests).toBe(1);
      test.setFaults({ rate5xx: 1 });
      const failed = await get(test.url, historyPath(day, day));
      expect(failed.status).toBeGreaterThanOrEqual(500);
      expect(test.stats().faultsInjected['5xx']).toBe(1);
    } finally {
      await Promise.all([user.close(), test.close()]);
    }
  });
});
