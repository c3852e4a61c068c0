/**
 * The settings each path of the stack runs with, read from the synthesized template (the real app, as
 * `cdk synth` builds it, no bundling): each engine function's `MemorySize` and `Timeout`, its environment
 * parsed by the product's own config parser (`loadConfig`, so a variable the template leaves unset takes its
 * default as it does in AWS), and the fan-out state machine's `MaxConcurrency`, the `rangePages` its plan step
 * is given and its timeout. The largest-day benches run with these and record them beside their figures
 * (`RecordedSettings`); test/bench/shippedSettings.test.ts checks the record against a fresh synthesis.
 */
import { synthesizedDefinition } from '../devkit/infra/localStateMachine.ts';
import type { CfnTemplate } from '../devkit/infra/templateArns.ts';
import { templateVariables } from '../devkit/infra/templateEnv.ts';
import { type SynthOptions, synthApp } from '../devkit/infra/testApp.ts';
import { type Config, loadConfig } from '../lib/archive/config/loadConfig.ts';
import { pageCap } from '../lib/archive/config/walkLimits.ts';

/** What one function that runs the engine is deployed with. */
export interface EngineFunctionSettings {
  memoryMb: number;
  timeoutSeconds: number;
  /** PAGE_SIZE: the rows a page asked of the API (the server may echo fewer). */
  pageSize: number;
  /** MAX_PAGES_PER_DAY as the template sets it; `null`: unset, the cap follows from the echoed size (`pageCap`). */
  maxPagesPerDay: number | null;
  pageConcurrency: number;
  dayConcurrency: number;
  deadlineReserveMs: number;
}

/** The fan-out's orchestration: its map and its timeout. */
export interface FanoutMachineSettings {
  /** The Distributed Map's `MaxConcurrency` (the `fanoutConcurrency` context). */
  maxConcurrency: number;
  /** Pages of one map item, as the plan step is given them (the `fanoutRangePages` context). */
  rangePages: number;
  /** The state machine's `TimeoutSeconds`. */
  timeoutSeconds: number;
}

export interface ShippedSettings {
  /** The scheduled archiver: one run's walk. */
  archiver: EngineFunctionSettings;
  /** The fan-out's function (plan, each map item, finish). */
  fanoutFunction: EngineFunctionSettings;
  fanoutMachine: FanoutMachineSettings;
  /** Each function's config as `loadConfig` resolves its template environment. */
  configs: { archiver: Config; fanoutFunction: Config };
  /**
   * The script each function's runtime starts through (its `AWS_LAMBDA_EXEC_WRAPPER`, where Lambda finds
   * it), or null. How a process starts, like Node's flags, not a setting a figure records.
   */
  execWrappers: { archiver: string | null; fanoutFunction: string | null };
}

/**
 * What a largest-day figure ran with, as RESULTS.json records it: the function's settings, the cap they make
 * at the page size the server echoed (`pageCap`, in pages and in sessions), and for the fan-out its machine's.
 */
export interface RecordedSettings extends EngineFunctionSettings {
  function: 'archiver' | 'fanoutFunction';
  /** Rows a page the server echoed (its cap on the asked `pageSize`). */
  pageRows: number;
  /** Pages one pass of a day may fetch at `pageRows` (`pageCap(maxPagesPerDay, pageRows)`). */
  pageCap: number;
  machine?: FanoutMachineSettings;
}

/**
 * What a bench set instead of the shipped value, each through the knob a user turns (a flag, a CDK context
 * option), and why: a run budget scaled down from Lambda's, a range size that splits a small day in workers.
 */
export type SettingOverrides = Record<string, number | string>;

const cache = new Map<string, ShippedSettings>();

/** The settings of the app synthesized with `context` (none: as it ships), synthesized once a process. */
export function shippedSettings(context: SynthOptions['context'] = {}): ShippedSettings {
  const key = JSON.stringify(context);
  const hit = cache.get(key);
  if (hit) return hit;
  let synthesized: ReturnType<typeof synthApp>;
  try {
    synthesized = synthApp({ context });
  } catch (error) {
    throw new Error(`the stack did not synthesize, so the settings it ships are unknown: ${error}`);
  }
  const { stack, template } = synthesized;
  const cfn = template.toJSON() as CfnTemplate;
  const engine = (construct: { node: { defaultChild?: unknown } }) => {
    const id = stack.getLogicalId(construct.node.defaultChild as never);
    const props = cfn.Resources[id]?.Properties ?? {};
    const memoryMb = Number(props.MemorySize);
    const timeoutSeconds = Number(props.Timeout);
    if (!(memoryMb > 0) || !(timeoutSeconds > 0))
      throw new Error(`the function ${id} has no MemorySize or Timeout in the template`);
    const env = templateVariables(cfn, id);
    const config = loadConfig({ env });
    const settings: EngineFunctionSettings = {
      memoryMb,
      timeoutSeconds,
      pageSize: config.pageSize,
      maxPagesPerDay: config.maxPagesPerDay ?? null,
      pageConcurrency: config.pageConcurrency,
      dayConcurrency: config.dayConcurrency,
      deadlineReserveMs: config.deadlineReserveMs,
    };
    return { settings, config, execWrapper: env.AWS_LAMBDA_EXEC_WRAPPER ?? null };
  };
  const archiver = engine(stack.archiver.fn);
  const fanoutFunction = engine(stack.fanout.fn);
  const machineId = stack.getLogicalId(stack.fanout.stateMachine.node.defaultChild as never);
  const definition = synthesizedDefinition(template, machineId) as ReturnType<
    typeof synthesizedDefinition
  > & { TimeoutSeconds?: number };
  const map = definition.States.Walk as { MaxConcurrency?: number } | undefined;
  const plan = definition.States.Plan as { Parameters?: { rangePages?: number } } | undefined;
  const fanoutMachine: FanoutMachineSettings = {
    maxConcurrency: Number(map?.MaxConcurrency),
    rangePages: Number(plan?.Parameters?.rangePages),
    timeoutSeconds: Number(definition.TimeoutSeconds),
  };
  for (const [name, value] of Object.entries(fanoutMachine))
    if (!(value > 0)) throw new Error(`the fan-out state machine has no ${name} in the template`);
  const settings: ShippedSettings = {
    archiver: archiver.settings,
    fanoutFunction: fanoutFunction.settings,
    fanoutMachine,
    configs: { archiver: archiver.config, fanoutFunction: fanoutFunction.config },
    execWrappers: { archiver: archiver.execWrapper, fanoutFunction: fanoutFunction.execWrapper },
  };
  cache.set(key, settings);
  return settings;
}

/** The settings one function of `shipped` runs with at `pageRows` echoed, as a figure records them. */
export function recordedSettings(
  shipped: ShippedSettings,
  fn: RecordedSettings['function'],
  pageRows: number,
): RecordedSettings {
  const s = shipped[fn];
  return {
    function: fn,
    ...s,
    pageRows,
    pageCap: pageCap(s.maxPagesPerDay ?? undefined, pageRows),
    ...(fn === 'fanoutFunction' ? { machine: shipped.fanoutMachine } : {}),
  };
}

/** "page size 2000 (100 rows echoed), cap 260001 pages, memory 1769 MB, timeout 900 s, ...", for RESULTS.md. */
export function settingsText(s: RecordedSettings): string {
  const parts = [
    `page size ${s.pageSize} (${s.pageRows} rows echoed)`,
    `cap ${s.pageCap} pages (${s.maxPagesPerDay === null ? 'MAX_PAGES_PER_DAY unset' : `MAX_PAGES_PER_DAY ${s.maxPagesPerDay}`})`,
    `memory ${s.memoryMb} MB`,
    `timeout ${s.timeoutSeconds} s`,
    `deadline reserve ${s.deadlineReserveMs} ms`,
    `${s.pageConcurrency} pages at once`,
    `${s.dayConcurrency} day${s.dayConcurrency === 1 ? '' : 's'} at once`,
  ];
  if (s.machine)
    parts.push(
      `map MaxConcurrency ${s.machine.maxConcurrency}`,
      `range pages ${s.machine.rangePages}`,
      `orchestration timeout ${s.machine.timeoutSeconds} s`,
    );
  return parts.join(', ');
}

/** ", set by the bench: maxRunMs 6000, ...", or nothing when the bench set none. */
export function overridesText(o: SettingOverrides | undefined): string {
  const entries = Object.entries(o ?? {});
  return entries.length ? `; set by the bench: ${entries.map(([k, v]) => `${k} ${v}`).join(', ')}` : '';
}
