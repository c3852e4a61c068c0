import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { BigDayResult } from '../../bench/bigDay.ts';
import type { FanoutLocalResult } from '../../bench/fanoutLocal.ts';
import type { FanoutFigures } from '../../bench/fanoutSimulation.ts';
import {
  type RecordedSettings,
  recordedSettings,
  type SettingOverrides,
  type ShippedSettings,
  shippedSettings,
} from '../../bench/shippedSettings.ts';
import { ENGINE_MEMORY_MIB } from '../../infra/constructs/archiveFunction.ts';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const results = JSON.parse(read('bench/RESULTS.json')) as {
  fanout?: FanoutFigures;
  bigDays?: BigDayResult[];
  fanoutLocal?: FanoutLocalResult[];
};

/** A largest-day figure of RESULTS.json: the settings it records, and what its bench may set instead. */
interface Figure {
  name: string;
  settings: RecordedSettings[] | undefined;
  overrides: SettingOverrides | undefined;
  /** The settings a bench may set otherwise, each through a flag or a CDK context option, said in RESULTS.md. */
  mayOverride: string[];
}

const figures: Figure[] = [
  ...(results.bigDays ?? []).map((b) => ({
    name: b.name,
    settings: b.settings && [b.settings],
    overrides: b.overrides,
    // A run budget scaled down from Lambda's 15 minutes; the machine's cores when no quota is asked for.
    mayOverride: ['maxRunMs', 'deadlineReserveMs', 'cpu'],
  })),
  ...(results.fanoutLocal ?? []).map((c) => ({
    name: c.name,
    settings: c.settings && [c.settings],
    overrides: c.overrides,
    // Ranges that split a small day between the workers; the emulator's window.
    mayOverride: ['fanoutRangePages', 'windowDays'],
  })),
  ...(results.fanout
    ? [
        {
          name: 'fanout-2M',
          settings: results.fanout.settings && [
            results.fanout.settings.oneRun,
            results.fanout.settings.fanout,
          ],
          overrides: results.fanout.overrides,
          mayOverride: ['windowDays'],
        },
      ]
    : []),
];
const measured = figures.filter((f) => f.settings !== undefined);
const stale = figures.filter((f) => f.settings === undefined);

describe('the largest-day figures of bench/RESULTS.json ran with the settings the synthesized stack ships', () => {
  let shipped: ShippedSettings;
  beforeAll(() => {
    shipped = shippedSettings();
  });

  it('reads each engine function and the fan-out machine from the template', () => {
    for (const fn of [shipped.archiver, shipped.fanoutFunction]) {
      expect(fn.memoryMb).toBeGreaterThan(0);
      expect(fn.timeoutSeconds).toBeGreaterThan(fn.deadlineReserveMs / 1000);
    }
    expect(shipped.fanoutMachine.maxConcurrency).toBeGreaterThan(0);
    expect(shipped.fanoutMachine.rangePages).toBeGreaterThan(0);
  });

  it('some figure records the settings it ran with', () => {
    expect(measured.map((f) => f.name).length).toBeGreaterThan(0);
  });

  it.each(measured.map((f) => [f.name, f] as const))(
    '%s: its recorded settings equal the synthesized ones',
    (name, figure) => {
      for (const recorded of figure.settings ?? []) {
        const now = recordedSettings(shipped, recorded.function, recorded.pageRows);
        expect(
          recorded,
          `${name} ran with the ${recorded.function}'s settings as they were; the stack now ships others: re-run \`npm run bench -- --only=${name.startsWith('fanout-local') ? 'fanout-local' : name}\``,
        ).toEqual(now);
      }
      expect(
        Object.keys(figure.overrides ?? {}).filter((k) => !figure.mayOverride.includes(k)),
        `${name} set a setting of the stack's otherwise`,
      ).toEqual([]);
    },
  );

  it.each(stale.map((f) => [f.name] as const))(
    "%s: not re-measured with the stack's settings (stale), and RESULTS.md says so",
    (name) => {
      const lines = read('bench/RESULTS.md')
        .split('\n')
        .filter((l) => l.includes("not re-measured with the stack's settings"));
      const named = new RegExp(`(^|[\\s,])${name}[,:]`);
      expect(
        lines.some((l) => named.test(l)),
        `RESULTS.md names ${name} as not re-measured`,
      ).toBe(true);
    },
  );

  it("fanout-2M's figures follow its settings: the map's concurrency and range pages", () => {
    const f = results.fanout;
    if (!f?.settings) return;
    expect(f.concurrency).toBe(shipped.fanoutMachine.maxConcurrency);
    expect(f.settings.fanout.machine).toEqual(shipped.fanoutMachine);
  });

  it("the finish step's measured capacity is judged against the fan-out function's memory", () => {
    expect(shipped.fanoutFunction.memoryMb).toBe(ENGINE_MEMORY_MIB);
  });
});
