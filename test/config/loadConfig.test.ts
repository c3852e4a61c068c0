import { readFileSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SETTINGS } from '../../lib/archive/config/configSpec.ts';
import { loadConfig } from '../../lib/archive/config/loadConfig.ts';
import { main } from '../../lib/cli/main.ts';
import { ArchiverError } from '../../lib/foundation/errors/archiverError.ts';
import { captureIo } from '../cli/cliKit.ts';

describe('loadConfig', () => {
  it('applies defaults, then environment, then flags (flags win)', () => {
    expect(loadConfig({ env: {} }).pageSize).toBe(2000);
    expect(loadConfig({ env: { PAGE_SIZE: '500' } }).pageSize).toBe(500);
    expect(loadConfig({ env: { PAGE_SIZE: '500' }, flags: { 'page-size': '50' } }).pageSize).toBe(50);
    expect(loadConfig({ env: { RESCAN_AGES: '7, 1,3,3' } }).rescanAges).toEqual([1, 3, 7]);
  });

  it('lets a command that only reads (report) take an s3:// destination without a state', () => {
    expect(loadConfig({ env: { ARCHIVE_DEST: 's3://my-bucket/p' }, readsOnly: true }).state).toBeUndefined();
  });

  it.each([
    [{ TOKEN_VALUES: 'x' }, "TOKEN_VALUES must be keep, hash or drop, got 'x'"],
    [{ TUNNEL_API_BASE_URL: 'foo' }, "TUNNEL_API_BASE_URL must be an http(s) URL, got 'foo'"],
    [{ ARCHIVE_DEST: 'ftp://x' }, "ARCHIVE_DEST must be file://DIR or s3://bucket/prefix, got 'ftp://x'"],
    [
      { ARCHIVE_STATE: 'redis://x' },
      "ARCHIVE_STATE must be dynamodb://TABLE (3-255 of a-z A-Z 0-9 _ . -), got 'redis://x'",
    ],
    [{ PAGE_SIZE: '0' }, "PAGE_SIZE must be at least 1, got '0'"],
    [{ PAGE_SIZE: '1.5' }, "PAGE_SIZE must be an integer from 1 to 10000, got '1.5'"],
    [{ PAGE_SIZE: '20000' }, "PAGE_SIZE must be at most 10000, got '20000'"],
    [{ LOG_FORMAT: 'xml' }, "LOG_FORMAT must be auto, human or json, got 'xml'"],
    [
      { ARCHIVE_DEST: 's3://my-bucket/p' },
      "ARCHIVE_STATE (dynamodb://TABLE) is required when ARCHIVE_DEST is s3:// (got 's3://my-bucket/p')",
    ],
    [{ RESCAN_AGES: '1,x' }, 'RESCAN_AGES must be comma-separated whole days >= 1'],
    [{ MAX_PAGES_PER_DAY: '0' }, 'MAX_PAGES_PER_DAY'],
    [{ CODEC: 'LZ4' }, "CODEC must be ZSTD, GZIP or SNAPPY, got 'LZ4'"],
    [{ CODEC: 'zstd' }, "CODEC must be ZSTD, GZIP or SNAPPY, got 'zstd'"],
    [
      { AWS_ENDPOINT_URL_S3: 'localhost:9000' },
      "AWS_ENDPOINT_URL_S3 must be an http(s) URL, got 'localhost:9000'",
    ],
    [{ SNAPSHOT_INTERVAL_MINUTES: '0' }, "SNAPSHOT_INTERVAL_MINUTES must be at least 1, got '0'"],
    [{ SNAPSHOT_COMMIT_MINUTES: '-1' }, "SNAPSHOT_COMMIT_MINUTES must be at least 0, got '-1'"],
    [{ SCHEDULE_MINUTES: 'five' }, "SCHEDULE_MINUTES must be an integer from 1 to 1440, got 'five'"],
    [{ DETECTION_SETTINGS: '{"rules":' }, 'DETECTION_SETTINGS must be a JSON object'],
    [{ DETECTION_SETTINGS: '[]' }, 'DETECTION_SETTINGS must be a JSON object'],
    [{ FINDINGS_TOPIC_ARN: 'my-topic' }, 'FINDINGS_TOPIC_ARN must be an SNS topic ARN'],
    [{ SECURITY_LAKE_SOURCES: '{}' }, 'SECURITY_LAKE_SOURCES must be a JSON array'],
    [{ SECURITY_LAKE_SOURCES: '[{' }, 'SECURITY_LAKE_SOURCES must be a JSON array'],
    [{ SECURITY_LAKE_SETTLE_HOURS: '73' }, "SECURITY_LAKE_SETTLE_HOURS must be at most 72, got '73'"],
    [{ SECURITY_LAKE_MAX_HOURS: '0' }, "SECURITY_LAKE_MAX_HOURS must be at least 1, got '0'"],
    [{ SECURITY_LAKE_LOOKBACK_DAYS: 'week' }, 'SECURITY_LAKE_LOOKBACK_DAYS must be an integer from 0 to 60'],
  ])('rejects %o with an actionable CONFIG_INVALID', (env, message) => {
    let caught: unknown;
    try {
      loadConfig({ env });
    } catch (e) {
      caught = e;
    }
    expect(ArchiverError.is(caught, 'CONFIG_INVALID')).toBe(true);
    expect((caught as Error).message).toContain(message);
  });

  it("reads the functions' variables into the one config", () => {
    const config = loadConfig({
      env: {
        CODEC: 'GZIP',
        SNAPSHOT_INTERVAL_MINUTES: '15',
        FINDINGS_TOPIC_ARN: 'arn:aws:sns:eu-west-1:123456789012:tunnel-findings.fifo',
        WORKGROUP: 'wg',
        DETECTION_SETTINGS: '{}',
      },
    });
    expect(config).toMatchObject({
      codec: 'GZIP',
      snapshotIntervalMinutes: 15,
      snapshotCommitMinutes: 60,
      scheduleMinutes: 5,
      findingsTopicArn: 'arn:aws:sns:eu-west-1:123456789012:tunnel-findings.fifo',
      workgroup: 'wg',
      detectionSettings: '{}',
    });
  });

  it('names the flag, not the variable, when the bad value came from a flag', () => {
    expect(() => loadConfig({ env: { PAGE_SIZE: '5' }, flags: { 'page-size': '-1' } })).toThrowError(
      "--page-size must be at least 1, got '-1'",
    );
    expect(() => loadConfig({ env: {}, flags: { dest: 'ftp://x' } })).toThrowError(
      "--dest must be file://DIR or s3://bucket/prefix, got 'ftp://x'",
    );
  });

  it('is documented: the configuration table (docs/configuration.md) lists every setting with its default', () => {
    const readme = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
    const rows = new Map(
      readme
        .split('\n')
        .map((line) => line.split('|').map((cell) => cell.trim()))
        .filter((cells) => /^`[A-Z0-9_]+`$/.test(cells[1] ?? ''))
        .map((cells) => [(cells[1] ?? '').slice(1, -1), cells[3] ?? ''] as const),
    );
    for (const s of SETTINGS) {
      expect(rows.has(s.env), `${s.env} missing from docs/configuration.md`).toBe(true);
      expect(rows.get(s.env)).toBe(s.default === undefined ? '—' : `\`${s.default}\``);
    }
    expect(rows.size).toBe(SETTINGS.length);
  });

  it.each([
    ['run', { CODEC: 'LZ4' }, 'CODEC must be ZSTD, GZIP or SNAPPY'],
    ['status', { SNAPSHOT_COMMIT_MINUTES: 'soon' }, 'SNAPSHOT_COMMIT_MINUTES must be an integer'],
    ['verify', { AWS_ENDPOINT_URL_S3: 'minio:9000' }, 'AWS_ENDPOINT_URL_S3 must be an http(s) URL'],
  ])('stops `%s` on a bad %o before anything is created (exit 2)', async (command, env, message) => {
    const dir = await mkdtemp(path.join(tmpdir(), 'ta-config-'));
    try {
      const { io, err } = captureIo({ ...env, TUNNEL_API_KEY: 'k', ARCHIVE_DEST: `file://${dir}/archive` });
      expect(await main([command], io)).toBe(2);
      expect(err()).toContain(message);
      expect(await readdir(dir)).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
