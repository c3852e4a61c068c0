import { existsSync, readdirSync, readFileSync } from 'node:fs';
import type { CfnElement } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';
import { CfnAlarm } from 'aws-cdk-lib/aws-cloudwatch';
import { beforeAll, describe, expect, it } from 'vitest';
import { EXTRA_MEASUREMENTS } from '../../bench/extraMeasurements.ts';
import { synthApp } from '../../devkit/infra/testApp.ts';
import { DETECT_METRIC } from '../../functions/shared/detectTelemetry.ts';
import { METRIC } from '../../functions/shared/telemetryNames.ts';
import { SNAPSHOT_METRIC } from '../../functions/snapshot-active/snapshotTelemetry.ts';
import { TABLE_NAME } from '../../infra/constructs/historyCatalog.ts';
import type { TunnelArchiverStack } from '../../infra/tunnelArchiverStack.ts';
import { loadRulesSync } from '../../lib/analytics/detect/loadRules.ts';
import { durationMs } from '../../lib/analytics/detect/ruleSchema.ts';
import { SETTINGS } from '../../lib/archive/config/configSpec.ts';
import { DT_PROJECTION_RANGE, TABLES } from '../../lib/archive/config/tableNames.ts';
import { DEFAULT_ROW_GROUP_BYTES } from '../../lib/archive/parquet/historyParquetFile.ts';
import { HISTORY_COLUMNS } from '../../lib/archive/parquet/historySchema.ts';
import { ACTIVE_CHUNK_PREFIX, CHUNK_BYTES } from '../../lib/archive/state/activeChunks.ts';
import { EXIT_CODES } from '../../lib/cli/exitCodes.ts';
import { queryCommandLine } from '../../lib/cli/queryCommand.ts';
import {
  HEAP_GROWING_PERCENT,
  HEAP_HEADROOM_BYTES,
  TWO_HEAPS_GROWING_PERCENT,
} from '../../lib/foundation/process/relieveHeap.ts';
import { section } from './markdownSection.ts';

const read = (rel: string) => readFileSync(new URL(`../../${rel}`, import.meta.url), 'utf8');
/** The README and every page under docs/: each claim below is checked in the page that makes it. */
const PAGES = [
  'README.md',
  ...readdirSync(new URL('../../docs', import.meta.url))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const README = read('README.md');

/** The cells of a Markdown table row: split on `|` not escaped as `\|`, then unescaped. */
function cells(line: string): string[] {
  return line
    .trim()
    .replace(/^\||\|$/g, '')
    .split(/(?<!\\)\|/)
    .map((c) => c.trim().replace(/\\\|/g, '|'));
}

/** Every Markdown table of a page, as rows of cells (header first, separator dropped). */
function tables(text: string): string[][][] {
  const out: string[][][] = [];
  let current: string[][] | undefined;
  let fence = false;
  for (const line of text.split('\n')) {
    if (line.startsWith('```')) fence = !fence;
    if (!fence && line.trim().startsWith('|')) {
      current ??= [];
      if (!/^\|[\s-|]+\|$/.test(line.trim())) current.push(cells(line));
    } else if (current) {
      out.push(current);
      current = undefined;
    }
  }
  if (current) out.push(current);
  return out;
}

const tableWithHeader = (page: string, first: string): string[][] => {
  const t = tables(read(page)).find((rows) => rows[0]?.[0] === first);
  if (!t) throw new Error(`${page} has no table starting with '${first}'`);
  return t;
};

describe('README and docs/', () => {
  let template: Template;
  let stack: TunnelArchiverStack;
  beforeAll(() => {
    ({ template, stack } = synthApp());
  });

  it('keeps the README short: at most 150 lines, the rest in docs/', () => {
    expect(README.split('\n').length).toBeLessThanOrEqual(150);
    for (const page of PAGES.filter((p) => p !== 'README.md')) expect(README).toContain(`(${page})`);
  });

  it("runs in CI the README's commands: `npm ci` from its quick start, `npm test` from its development section", () => {
    expect(section('README.md', 'Quick start')).toMatch(/^npm ci && npm start$/m);
    expect(section('README.md', 'Development')).toContain('`npm test`');
    const ci = read('.ci/run');
    expect(ci).toMatch(/^npm ci\b/m);
    expect(ci).toMatch(/^npm test\b/m);
  });

  it('gives only commands whose script exists (`bin/run-ts.js <file>`)', () => {
    let commands = 0;
    for (const page of PAGES) {
      for (const [, file] of read(page).matchAll(/bin\/run-ts\.js\s+([\w./-]+\.ts)/g)) {
        commands++;
        expect(existsSync(new URL(`../../${file}`, import.meta.url)), `${page} runs ${file}`).toBe(true);
      }
    }
    expect(commands).toBeGreaterThanOrEqual(2);
  });

  it('names every measurement `npm run bench -- --only` takes besides the cases', () => {
    const stated = /besides the cases,([\s\S]*?)are names `--only` takes/.exec(
      read('docs/development.md'),
    )?.[1];
    expect(stated, 'docs/development.md lists the names').toBeDefined();
    const names = [...(stated ?? '').matchAll(/`([a-z0-9-]+)`/g)].map((m) => m[1]);
    expect(names.sort()).toEqual([...EXTRA_MEASUREMENTS].sort());
  });

  it('names in "Where is X" only modules that exist', () => {
    const rows = tableWithHeader('docs/design.md', 'behaviour').slice(1);
    expect(rows.length).toBeGreaterThan(10);
    for (const [behaviour, where] of rows) {
      // Every row names a module (a row without one names nothing that exists), and each it names exists.
      const paths = [...(where ?? '').matchAll(/`([^`]*\/[^`]*)`/g)].map((m) => m[1] as string);
      expect(paths.length, `${behaviour}: names no module`).toBeGreaterThan(0);
      for (const path of paths)
        expect(existsSync(new URL(`../../${path}`, import.meta.url)), `${behaviour}: ${path}`).toBe(true);
    }
  });

  it('renders every table: each row has as many cells as its header', () => {
    for (const page of PAGES)
      for (const t of tables(read(page))) {
        const width = t[0]?.length;
        for (const row of t) expect(row, `${page}: row ${row.join(' | ')}`).toHaveLength(width as number);
      }
  });

  it('the configuration table is the config spec, cell by cell', () => {
    const rows = tableWithHeader('docs/configuration.md', 'variable').slice(1);
    expect(rows).toEqual(
      SETTINGS.map((s) => [
        `\`${s.env}\``,
        'flag' in s ? `\`--${s.flag}\`` : '—',
        s.default === undefined ? '—' : `\`${s.default}\``,
        s.description,
        s.readBy.join(', '),
      ]),
    );
  });

  it('names each function among the readers of every variable the stack sets for it, every function of the template', () => {
    // Every opt-in on (the Security Lake export is a function only then), so every function is there.
    const lake = {
      sources: [
        {
          cls: 'sessions',
          bucket: 'aws-security-data-lake-us-east-1-test',
          prefix: 'ext/tunnel-archiver-sessions/',
          roleArn: 'arn:aws:iam::123456789012:role/AmazonSecurityLake-Provider-sessions-us-east-1',
          externalIdSecret: 'tunnel-archiver/lake-external-id-sessions',
        },
      ],
    };
    const full = synthApp({ context: { securityLake: JSON.stringify(lake) } });
    const lakeFn = full.stack.securityLake?.fn;
    if (!lakeFn) throw new Error('the securityLake context made no Security Lake export');
    const functions = {
      'archive-history': full.stack.archiver.fn,
      fanout: full.stack.fanout.fn,
      'snapshot-active': full.stack.snapshots.fn,
      detect: full.stack.detections.fn,
      'security-lake-export': lakeFn,
      'verify-job': full.stack.verifyJob.fn,
    } as const;
    const resources = full.template.toJSON().Resources as Record<
      string,
      { Type: string; Properties: { Environment?: { Variables?: Record<string, unknown> } } }
    >;
    const idOf = (fn: { node: { defaultChild?: unknown } }) =>
      full.stack.getLogicalId(fn.node.defaultChild as CfnElement);
    // Each Lambda function of the template is one of these.
    expect(
      Object.entries(resources)
        .filter(([, r]) => r.Type === 'AWS::Lambda::Function')
        .map(([id]) => id)
        .sort(),
    ).toEqual(Object.values(functions).map(idOf).sort());
    for (const [reader, fn] of Object.entries(functions)) {
      const set = Object.keys(resources[idOf(fn)]?.Properties.Environment?.Variables ?? {}).filter(
        (v) => !v.startsWith('POWERTOOLS_') && !v.startsWith('AWS_') && v !== 'NODE_OPTIONS',
      );
      expect(set.length, reader).toBeGreaterThan(0);
      for (const variable of set) {
        const spec = SETTINGS.find((s) => s.env === variable);
        expect(spec, `${reader} is given ${variable}, which the config spec lacks`).toBeDefined();
        expect(spec?.readBy as readonly string[], `${variable} lists ${reader} among its readers`).toContain(
          reader,
        );
      }
    }
  });

  it("draws the schedules of the README's diagram as the stack synthesizes them", () => {
    const diagram = /```mermaid\n([\s\S]*?)```/.exec(README)?.[1] ?? '';
    const rules = Object.values(template.findResources('AWS::Events::Rule')).map((r) => ({
      expression: (r as { Properties: { ScheduleExpression?: string } }).Properties.ScheduleExpression,
      targets: JSON.stringify((r as { Properties: { Targets?: unknown } }).Properties.Targets),
    }));
    const startedBy = (construct: { node: { defaultChild?: unknown } }) =>
      rules.filter((r) =>
        r.targets.includes(`"${stack.getLogicalId(construct.node.defaultChild as CfnElement)}"`),
      );
    const edges: [string, { node: { defaultChild?: unknown } }, string[]][] = [
      ['-->|every 6 h by default| SM', stack.fanout.stateMachine, ['rate(6 hours)']],
      ['-->|weekly verify, daily checksum reports| L', stack.archiver.fn, ['rate(1 day)', 'rate(7 days)']],
      ['-->|every 5 min| SN', stack.snapshots.fn, ['rate(5 minutes)']],
      ['-->|every 5 min| DE', stack.detections.fn, ['rate(5 minutes)']],
    ];
    for (const [edge, target, expressions] of edges) {
      expect(diagram, edge).toContain(
        `EB${edge.startsWith('-->|every 6') ? '[EventBridge schedules] ' : ' '}${edge}`,
      );
      expect(
        startedBy(target)
          .map((r) => r.expression)
          .sort(),
        edge,
      ).toEqual(expressions);
    }
  });

  it('the exit code table is the CLI’s', () => {
    expect(tableWithHeader('docs/cli.md', 'exit code').slice(1)).toEqual(
      EXIT_CODES.map((e) => [String(e.code), e.meaning]),
    );
  });

  it('states the partition projection range the stack synthesizes', () => {
    const tables = template.findResources('AWS::Glue::Table');
    const ranges = Object.values(tables).map(
      (t) =>
        (t as { Properties: { TableInput: { Parameters: Record<string, string> } } }).Properties.TableInput
          .Parameters['projection.dt.range'],
    );
    expect(ranges).toContain(DT_PROJECTION_RANGE);
    const operations = read('docs/operations.md');
    expect(operations).toContain(`The projection range is \`${DT_PROJECTION_RANGE}\``);
    expect(operations).not.toMatch(/forever/i);
  });
  it('names every fixed-cost resource of the stack in the cost notes, with how many the template holds', () => {
    // Every resource type of the template is classified: what bills monthly whatever happens, or what
    // bills only with use. A new type fails here until someone decides which it is (and documents it).
    const FIXED: Record<string, string> = {
      'AWS::CloudWatch::Alarm': 'CloudWatch alarm',
      'AWS::CloudWatch::Dashboard': 'CloudWatch dashboard',
      'AWS::SecretsManager::Secret': 'Secrets Manager secret',
      'AWS::KMS::Key': 'KMS customer managed key',
    };
    const USAGE = new Set([
      // The fan-out's state machine bills per state transition.
      'AWS::StepFunctions::StateMachine',
      'AWS::S3::Bucket',
      'AWS::S3::BucketPolicy',
      'AWS::DynamoDB::GlobalTable',
      'AWS::SQS::Queue',
      'AWS::SQS::QueuePolicy',
      'AWS::Logs::LogGroup',
      'AWS::IAM::Role',
      'AWS::IAM::Policy',
      'AWS::Lambda::Function',
      'AWS::Lambda::EventInvokeConfig',
      'AWS::Lambda::Permission',
      'AWS::Events::Rule',
      'AWS::SNS::Topic',
      'AWS::SNS::TopicPolicy',
      'AWS::SNS::Subscription',
      'AWS::Glue::Database',
      'AWS::Glue::Table',
      'AWS::Athena::WorkGroup',
      'AWS::Athena::NamedQuery',
      'AWS::CDK::Metadata',
    ]);
    const counts = new Map<string, number>();
    for (const r of Object.values(template.toJSON().Resources) as { Type: string }[])
      counts.set(r.Type, (counts.get(r.Type) ?? 0) + 1);
    for (const type of counts.keys())
      expect(type in FIXED || USAGE.has(type), `${type}: fixed monthly cost, or usage only?`).toBe(true);
    const rows = tableWithHeader('docs/operations.md', 'resource').slice(1);
    const documented = new Map(rows.map((r) => [r[0], Number(r[2])] as const));
    const expected = new Map(
      Object.entries(FIXED)
        .filter(([type]) => counts.has(type))
        .map(([type, name]) => [name, counts.get(type)] as const),
    );
    expect(documented).toEqual(expected);
  });

  it('states the snapshot and detection costs from the schedules the stack synthesizes and the rules', () => {
    const functions = Object.values(template.findResources('AWS::Lambda::Function')) as {
      Properties: { MemorySize?: number; Environment?: { Variables?: Record<string, string> } };
    }[];
    const withVariable = (name: string) => {
      const fn = functions.find((f) => f.Properties.Environment?.Variables?.[name] !== undefined);
      return {
        minutes: Number(fn?.Properties.Environment?.Variables?.[name]),
        memory: fn?.Properties.MemorySize,
      };
    };
    const snapshot = withVariable('SNAPSHOT_INTERVAL_MINUTES');
    const detect = withVariable('SCHEDULE_MINUTES');
    const month = 30 * 24 * 60;
    const rules = loadRulesSync();
    // Each rule on its schedule, and the warm-up's query of the archive's oldest day once an evaluation
    // runs a rule with a baseline (every hour: all the rules run hourly).
    const withBaseline = rules.filter((r) => typeof r.settings?.baseline_days === 'number').length;
    const queries =
      rules.reduce((n, r) => n + (month * 60_000) / durationMs(r.schedule), 0) +
      (withBaseline > 0 ? month / 60 : 0);
    // The simulated first week measured the same a steady day (the days after the first).
    const week = JSON.parse(read('bench/cost/firstWeekUsage.json')) as {
      days: { functions: Record<string, { awsCalls: Record<string, number> }> }[];
    };
    for (const day of week.days.slice(1))
      expect(day.functions.DetectionsFunction?.awsCalls['Athena:StartQueryExecution']).toBe(queries / 30);
    const cost = section('docs/operations.md', 'Cost notes').replace(/\s+/g, ' ');
    const figure = (n: number) => n.toLocaleString('en-US');
    expect(cost).toContain(
      `every ${snapshot.minutes} minutes, ${figure(month / snapshot.minutes)} invocations a month of a ${snapshot.memory} MiB`,
    );
    expect(cost).toContain(
      `wakes every ${detect.minutes} minutes (${figure(month / detect.minutes)} invocations`,
    );
    expect(cost).toContain(
      `each of the ${rules.length} rules hourly, and one query for the archive's oldest day (the warm-up of the ${withBaseline} rules with a baseline): ${figure(queries)} Athena queries a month`,
    );
    expect(rules.every((r) => durationMs(r.schedule) === 3_600_000)).toBe(true);
    expect(cost).toContain(`at least ${figure((queries * 10) / 1000)} GB`);
  });

  it('explains every alarm of the stack by name, and lists the metrics each function emits', () => {
    // The alarm construct's id (its path in the template's metadata), as the table names it.
    const alarms = stack.node
      .findAll()
      .filter((c) => c instanceof CfnAlarm)
      .map((c) => c.node.scope?.node.id);
    expect(alarms).toHaveLength(Object.keys(template.findResources('AWS::CloudWatch::Alarm')).length);
    const rows = tableWithHeader('docs/operations.md', 'alarm').slice(1);
    const named = rows.map((r) => /`(\w+)`/.exec(r[0] ?? '')?.[1]);
    expect(named.sort()).toEqual(alarms.sort());
    const operations = read('docs/operations.md');
    const at = operations.indexOf('Metrics (namespace');
    const bullets = operations
      .slice(at, operations.indexOf('\n\n', operations.indexOf('\n- ', at)))
      .split('\n- ');
    const listed = (emitter: string) => {
      const bullet = bullets.find((b) => b.startsWith(emitter)) ?? '';
      return [...bullet.slice(emitter.length).matchAll(/`(\w+)`/g)]
        .map((m) => m[1])
        .filter((n) => n !== 'rule' && n !== 'severity');
    };
    expect(listed('`archive-history` and the fan-out:').sort()).toEqual(Object.values(METRIC).sort());
    expect(listed('`snapshot-active`:').sort()).toEqual(Object.values(SNAPSHOT_METRIC).sort());
    expect(listed('`detect`:').sort()).toEqual(Object.values(DETECT_METRIC).sort());
  });

  it('names every Glue table and view of the stack in the data contract', () => {
    const names = Object.values(template.findResources('AWS::Glue::Table')).map(
      (t) => (t as { Properties: { TableInput: { Name: string } } }).Properties.TableInput.Name,
    );
    expect(names.length).toBeGreaterThanOrEqual(6);
    const contract = read('docs/data-contract.md');
    for (const name of names)
      expect(contract.includes(`\`${name}\``) || contract.includes(`tunnel_archive.${name}`), name).toBe(
        true,
      );
  });

  it("describes each Parquet dataset's partition `dt` in Glue as the data contract does", () => {
    // The contract states it once per dataset: `<dataset>/dt=YYYY-MM-DD/...` (`dt` = <what dt is>).
    const contract = read('docs/data-contract.md').replace(/\s+/g, ' ');
    const stated = new Map(
      [...contract.matchAll(/`([a-z]+)\/dt=YYYY-MM-DD\/[^`]*` \(`dt` = ([^):]+)[):]/g)].map(
        (m) => [m[1] as string, (m[2] as string).trim()] as const,
      ),
    );
    type Input = {
      Name: string;
      Description: string;
      PartitionKeys?: { Name: string; Comment: string }[];
      StorageDescriptor: { Location: unknown };
    };
    const inputs = Object.values(template.findResources('AWS::Glue::Table'))
      .map((t) => (t as { Properties: { TableInput: Input } }).Properties.TableInput)
      .filter((t) => t.PartitionKeys !== undefined);
    expect(inputs.map((t) => t.Name).sort()).toEqual(
      ['tunnel_active_sessions', 'tunnel_findings', 'tunnel_sessions'].sort(),
    );
    // dt is the one column Glue describes: a comment on any other needs its own check against the contract.
    const commented = Object.values(template.findResources('AWS::Glue::Table')).flatMap((t) => {
      const input = (
        t as { Properties: { TableInput: Input & { StorageDescriptor: { Columns?: unknown[] } } } }
      ).Properties.TableInput;
      return [...(input.StorageDescriptor.Columns ?? []), ...(input.PartitionKeys ?? [])]
        .filter((c) => (c as { Comment?: string }).Comment !== undefined)
        .map((c) => `${input.Name}.${(c as { Name: string }).Name}`);
    });
    expect(commented.filter((c) => !c.endsWith('.dt'))).toEqual([]);
    for (const t of inputs) {
      const dataset = /\/([a-z]+)\/"/.exec(JSON.stringify(t.StorageDescriptor.Location))?.[1] ?? '';
      const meaning = stated.get(dataset);
      expect(
        meaning,
        `docs/data-contract.md states what \`dt\` is for ${dataset}/ (${t.Name})`,
      ).toBeDefined();
      const dt = t.PartitionKeys?.find((k) => k.Name === 'dt');
      expect(dt?.Comment, `${t.Name}: the Glue comment of dt`).toBe(`${meaning}, YYYY-MM-DD`);
      expect(/\bdt = (.+)$/.exec(t.Description)?.[1], `${t.Name}: dt in the table's description`).toBe(
        meaning,
      );
    }
  });

  it('lists exactly the Parquet columns', () => {
    const text =
      section('docs/data-contract.md', 'Parquet columns \\(public contract\\)').split('Partition `dt`')[0] ??
      '';
    const named = [...text.matchAll(/`([a-z_0-9]+)`/g)].map((m) => m[1]);
    expect(named.sort()).toEqual(HISTORY_COLUMNS.map((c) => c.name).sort());
  });

  it('states the chunk size and key prefix the live-session state store uses', () => {
    const contract = read('docs/data-contract.md');
    const paragraph = contract.slice(
      contract.indexOf('**Exactly once.**'),
      contract.indexOf('A snapshot stores'),
    );
    expect(paragraph).toContain(
      `\`${ACTIVE_CHUNK_PREFIX}<version>#<nonce>#<i>\`, ${CHUNK_BYTES / 1000} KB each`,
    );
    expect(paragraph).toContain(`delete DynamoDB items only under \`${ACTIVE_CHUNK_PREFIX}\``);
  });

  it('states the row-group payload bound the writer uses', () => {
    const claim = /or (\d+) MiB of row payload, whichever comes first/.exec(read('docs/design.md'));
    expect(claim, 'README states the row-group bound').not.toBeNull();
    expect(Number(claim?.[1]) * 1024 * 1024).toBe(DEFAULT_ROW_GROUP_BYTES);
  });

  it('states the heap growth bound and the forced-collection backstop the engine uses', () => {
    const design = read('docs/design.md').replace(/\s+/g, ' ');
    const growth = /`--heap-growing-percent=(\d+)`/.exec(design);
    expect(growth, 'design.md states the heap growth flag').not.toBeNull();
    expect(Number(growth?.[1])).toBe(HEAP_GROWING_PERCENT);
    const twoHeaps = /`(\d+)` once the encoding worker starts/.exec(design);
    expect(twoHeaps, 'design.md states the bound with the encoding worker').not.toBeNull();
    expect(Number(twoHeaps?.[1])).toBe(TWO_HEAPS_GROWING_PERCENT);
    const backstop = /past (\d+) MiB of garbage above what survived the last one/.exec(design);
    expect(backstop, 'design.md states the backstop').not.toBeNull();
    expect(Number(backstop?.[1]) * 1024 * 1024).toBe(HEAP_HEADROOM_BYTES);
  });

  it('uses the Athena table name locally too, and the quick start runs the printed query', () => {
    expect(TABLES.history.name).toBe(TABLE_NAME);
    expect(section('README.md', 'Quick start')).toContain(queryCommandLine());
  });

  it('agrees with package.json engines and .nvmrc on Node versions', () => {
    const engines = (JSON.parse(read('package.json')) as { engines: { node: string } }).engines.node;
    const nvmrc = read('.nvmrc').trim();
    const node = section('docs/development.md', 'Node versions');
    expect(node).toContain(`Node \`${engines}\``);
    expect(node).toContain(`Node \`${nvmrc}\``);
    expect(node).toMatch(/January 2027/);
    const [major = 0, minor = 0] = (/^>=(\d+)\.(\d+)$/.exec(engines) ?? []).slice(1).map(Number);
    expect(Number(nvmrc)).toBeGreaterThanOrEqual(major);
    const [runMajor = 0, runMinor = 0] = process.versions.node.split('.').map(Number);
    expect(
      runMajor > major || (runMajor === major && runMinor >= minor),
      'the test runtime meets engines',
    ).toBe(true);
  });
});
