import { readFileSync } from 'node:fs';
import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { METRIC } from '../../functions/archive-history/telemetryNames.ts';
import { TABLE_NAME } from '../../infra/constructs/historyCatalog.ts';
import { EXIT_CODES } from '../../lib/cli/exitCodes.ts';
import { queryCommandLine } from '../../lib/cli/queryCommand.ts';
import { SETTINGS } from '../../lib/config/configSpec.ts';
import { DT_PROJECTION_RANGE, TABLES } from '../../lib/config/tableNames.ts';
import { DEFAULT_ROW_GROUP_BYTES } from '../../lib/parquet/historyParquetFile.ts';
import { HISTORY_COLUMNS } from '../../lib/parquet/historySchema.ts';
import { ACTIVE_CHUNK_PREFIX, CHUNK_BYTES } from '../../lib/state/activeChunks.ts';
import { synthApp } from '../infra/testApp.ts';

const read = (rel: string) => readFileSync(new URL(`../../${rel}`, import.meta.url), 'utf8');
const README = read('README.md');

/** The cells of a Markdown table row: split on `|` not escaped as `\|`, then unescaped. */
function cells(line: string): string[] {
  return line
    .trim()
    .replace(/^\||\|$/g, '')
    .split(/(?<!\\)\|/)
    .map((c) => c.trim().replace(/\\\|/g, '|'));
}

/** Every Markdown table in the README, as rows of cells (header first, separator dropped). */
function tables(): string[][][] {
  const out: string[][][] = [];
  let current: string[][] | undefined;
  let fence = false;
  for (const line of README.split('\n')) {
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

const tableWithHeader = (first: string): string[][] => {
  const t = tables().find((rows) => rows[0]?.[0] === first);
  if (!t) throw new Error(`README has no table starting with '${first}'`);
  return t;
};

/** The README section under `## title` / `### title`, up to the next heading of any level. */
function section(title: string): string {
  const start = README.search(new RegExp(`^#+ ${title}$`, 'm'));
  if (start < 0) throw new Error(`README has no section '${title}'`);
  const rest = README.slice(start).split('\n');
  const end = rest.slice(1).findIndex((l) => l.startsWith('#'));
  return rest.slice(0, end < 0 ? undefined : end + 1).join('\n');
}

describe('README', () => {
  let template: Template;
  beforeAll(() => {
    template = synthApp().template;
  }, 60_000);

  it('renders every table: each row has as many cells as its header', () => {
    for (const t of tables()) {
      const width = t[0]?.length;
      for (const row of t) expect(row, `row ${row.join(' | ')}`).toHaveLength(width as number);
    }
  });

  it('the configuration table is the config spec, cell by cell', () => {
    const rows = tableWithHeader('variable').slice(1);
    expect(rows).toEqual(
      SETTINGS.map((s) => [
        `\`${s.env}\``,
        'flag' in s ? `\`--${s.flag}\`` : '—',
        s.default === undefined ? '—' : `\`${s.default}\``,
        s.description,
      ]),
    );
  });

  it('the exit code table is the CLI’s', () => {
    expect(tableWithHeader('exit code').slice(1)).toEqual(EXIT_CODES.map((e) => [String(e.code), e.meaning]));
  });

  it('states the partition projection range the stack synthesizes', () => {
    const tables = template.findResources('AWS::Glue::Table');
    const ranges = Object.values(tables).map(
      (t) =>
        (t as { Properties: { TableInput: { Parameters: Record<string, string> } } }).Properties.TableInput
          .Parameters['projection.dt.range'],
    );
    expect(ranges).toContain(DT_PROJECTION_RANGE);
    expect(README).toContain(`The projection range is \`${DT_PROJECTION_RANGE}\``);
    expect(README).not.toMatch(/forever/i);
  });

  it('names every fixed-cost resource of the stack in the cost notes', () => {
    const costs = tableWithHeader('resource')
      .slice(1)
      .map((r) => r[0]);
    const fixed: Record<string, string> = {
      'AWS::CloudWatch::Alarm': 'CloudWatch alarm',
      'AWS::SecretsManager::Secret': 'Secrets Manager secret',
      'AWS::KMS::Key': 'KMS customer managed key',
    };
    for (const [type, name] of Object.entries(fixed)) {
      const present = Object.keys(template.findResources(type)).length > 0;
      expect(costs.includes(name), `${type} in the stack: ${present}`).toBe(present);
    }
  });

  it('explains every alarm of the stack, and lists the metrics the Lambda emits', () => {
    const alarms = Object.keys(template.findResources('AWS::CloudWatch::Alarm'));
    expect(tableWithHeader('alarm').slice(1)).toHaveLength(alarms.length);
    const at = README.indexOf('Metrics (namespace');
    const metrics = README.slice(at, README.indexOf('\n\n', at));
    const listed = [...metrics.matchAll(/`(\w+)`/g)].map((m) => m[1]).filter((n) => n !== 'TunnelArchiver');
    expect(listed.sort()).toEqual(Object.values(METRIC).sort());
  });

  it('lists exactly the Parquet columns', () => {
    const text = section('Parquet columns \\(public contract\\)').split('Partition `dt`')[0] ?? '';
    const named = [...text.matchAll(/`([a-z_0-9]+)`/g)].map((m) => m[1]);
    expect(named.sort()).toEqual(HISTORY_COLUMNS.map((c) => c.name).sort());
  });

  it('states the performance targets as bench/RESULTS.json measured them', () => {
    interface Case {
      name: string;
      codec: string;
      records: number;
      ratio: number;
      archiverSeconds: number;
      peakRssMiB: number;
      maxRatio?: number;
      maxRssMiB?: number;
      parquetBytes: number;
      gzipJsonlBytes?: number;
      sizes?: { columns: { name: string; bytes: number }[] };
    }
    const results = JSON.parse(read('bench/RESULTS.json')) as {
      quick: boolean;
      results: Case[];
      cold?: { medianMs: number };
    };
    expect(results.quick, 'README figures come from a full run').toBe(false);
    const text = section('Performance');
    const verdict = (label: string) => new RegExp(`- ${label}: \\*\\*(met|not met)\\*\\*`).exec(text)?.[1];
    const status = (ok: boolean) => (ok ? 'met' : 'not met');

    const memory = results.results.filter((r) => r.maxRssMiB !== undefined);
    expect(memory.map((r) => r.name).sort()).toEqual(['backfill-1M', 'day-1M']);
    expect(verdict('memory')).toBe(status(memory.every((r) => r.peakRssMiB <= (r.maxRssMiB ?? 0))));

    const speed = results.results.filter((r) => r.maxRatio !== undefined);
    expect(verdict('speed')).toBe(status(speed.every((r) => r.ratio <= (r.maxRatio ?? 0))));
    const lo = Math.floor(Math.min(...speed.map((r) => r.ratio)));
    const hi = Math.ceil(Math.max(...speed.map((r) => r.ratio)));
    expect(text).toContain(`takes ${lo}–${hi}× the fetch-and-parse bound`);

    const sized = (codec: string) =>
      results.results.find((r) => r.gzipJsonlBytes && r.codec === codec) as Case;
    const ratioOf = (r: Case) => (r.parquetBytes / (r.gzipJsonlBytes ?? 1)).toFixed(1);
    const zstd = sized('ZSTD');
    // The bench's own Node (20 here) writes the other codec (GZIP; SNAPPY before that).
    const older = results.results.find((r) => r.gzipJsonlBytes && r.codec !== 'ZSTD') as Case;
    expect(verdict('size')).toBe(status(zstd.parquetBytes <= (zstd.gzipJsonlBytes ?? 0)));
    expect(text).toContain(`the archive is ${ratioOf(zstd)}× gzipped JSON lines`);
    expect(text).toContain(`(${older.codec} ${ratioOf(older)}×)`);
    const idBytes = (zstd.sizes?.columns ?? [])
      .filter((c) => c.name === 'record_id' || c.name === 'session_id')
      .reduce((n, c) => n + c.bytes, 0);
    expect(text).toContain(
      `two 128-bit ids alone take ${Math.round((100 * idBytes) / (zstd.gzipJsonlBytes ?? 1))}%`,
    );

    expect(verdict('Lambda cold start')).toBe(status((results.cold?.medianMs ?? Infinity) <= 200));
    expect(text).toContain(`median ${results.cold?.medianMs} ms (target 200 ms)`);

    // The worker encoder's speed-up and memory cost, from the paired million-record cases.
    const named = (name: string) => results.results.find((r) => r.name === name) as Case;
    const pairs = ['backfill-1M', 'day-1M'].map((name) => [named(name), named(`${name}-worker`)] as const);
    const speedups = pairs.map(([inline, worker]) => inline.archiverSeconds / worker.archiverSeconds);
    const [slow, fast] = [Math.min(...speedups).toFixed(1), Math.max(...speedups).toFixed(1)];
    expect(text).toContain(
      `\`PARQUET_ENCODER=worker\` is ${slow === fast ? slow : `${slow}–${fast}`}× faster`,
    );
    const extra = pairs.map(([inline, worker]) => worker.peakRssMiB - inline.peakRssMiB);
    const meanExtra = extra.reduce((a, b) => a + b, 0) / extra.length;
    expect(README).toContain(`the\nworker costs about ${Math.round(meanExtra / 10) * 10} MiB of peak RSS`);

    // The overlap line: the 100k-record day with and without 150 ms a request.
    const withLatency = named('day-100k-150ms');
    expect(text.replace(/\s+/g, ' ')).toContain(
      `one 100k-record day takes ${withLatency.ratio.toFixed(1)}× the latency bound (pages × latency ÷ concurrency), ` +
        `against ${Math.round(named('day-100k').ratio)}× the bound without latency`,
    );
  });

  it('states the chunk size and key prefix the live-session state store uses', () => {
    const paragraph = README.slice(README.indexOf('**Exactly once.**'), README.indexOf('A snapshot stores'));
    expect(paragraph).toContain(
      `\`${ACTIVE_CHUNK_PREFIX}<version>#<nonce>#<i>\`, ${CHUNK_BYTES / 1000} KB each`,
    );
    expect(paragraph).toContain(`delete DynamoDB items only under \`${ACTIVE_CHUNK_PREFIX}\``);
  });

  it('states the row-group payload bound the writer uses', () => {
    const claim = /or (\d+) MiB of row payload, whichever comes first/.exec(README);
    expect(claim, 'README states the row-group bound').not.toBeNull();
    expect(Number(claim?.[1]) * 1024 * 1024).toBe(DEFAULT_ROW_GROUP_BYTES);
  });

  it('uses the Athena table name locally too, and the quick start runs the printed query', () => {
    expect(TABLES.history.name).toBe(TABLE_NAME);
    expect(section('Quick start')).toContain(queryCommandLine());
  });

  it('agrees with package.json engines and .nvmrc on Node versions', () => {
    const engines = (JSON.parse(read('package.json')) as { engines: { node: string } }).engines.node;
    const nvmrc = read('.nvmrc').trim();
    const node = section('Node versions');
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
