import { describe, expect, it } from 'vitest';
import { runEmulatorCommand } from '../../lib/cli/emulatorCommand.ts';
import { get, historyPath } from './emulatorKit.ts';

type ActiveEntry = {
  token: string | null;
  virtualToken: string;
  virtualTokenName: string | null;
  port: number;
};

/** Captures output; `waitFor` resolves when the captured stdout matches. */
function captureIo(signal?: AbortSignal) {
  const out: string[] = [];
  const err: string[] = [];
  let onOut = () => {};
  return {
    io: {
      stdout: {
        write: (s: string) => {
          out.push(s);
          onOut();
        },
      },
      stderr: { write: (s: string) => err.push(s) },
      ...(signal ? { signal } : {}),
    },
    out: () => out.join(''),
    err: () => err.join(''),
    waitFor: (re: RegExp) =>
      new Promise<RegExpExecArray>((resolve) => {
        onOut = () => {
          const m = re.exec(out.join(''));
          if (m) resolve(m);
        };
        onOut();
      }),
  };
}

describe('runEmulatorCommand', () => {
  it('prints usage for --help and exits 0', async () => {
    const c = captureIo();
    expect(await runEmulatorCommand(['--help'], c.io)).toBe(0);
    expect(c.out()).toMatch(/^Usage: tunnel-archiver emulator/);
    expect(c.out()).toContain('--rate-429');
    for (const flag of [
      '--scale',
      '--stable-order',
      '--stale-totals',
      '--stale-lag-ms',
      '--poison-count',
      '--poison-rate',
      '--window-days',
      '--live-shape',
    ])
      expect(c.out()).toContain(flag);
  });

  it.each([
    [['--port', 'abc']],
    [['--port', '70000']],
    [['--bogus']],
    [['--rate-429', '2']],
    [['--retry-after', 'tomorrow']],
    [['--now', 'not-a-date']],
    [['--rate', '0']],
    [['stray-positional']],
    [['--scale', '0']],
    [['--scale', 'big']],
    [['--stale-totals', 'sometimes']],
    [['--stale-lag-ms', '-5']],
    [['--poison-count', '1.5']],
    [['--poison-rate', '11']],
    [['--live-shape', 'guessed']],
  ])('rejects %j with one line on stderr and exit code 2', async (argv) => {
    const c = captureIo();
    expect(await runEmulatorCommand(argv, c.io)).toBe(2);
    expect(c.err()).toMatch(/^emulator: [^\n]+\n$/);
    expect(c.out()).toBe('');
  });

  it('serves on the printed URL with a fixed clock and faults until stopped, then exits 0', async () => {
    const stop = new AbortController();
    const c = captureIo(stop.signal);
    const running = runEmulatorCommand(
      [
        '--port',
        '0',
        '--now',
        '2025-03-01T12:00:00Z',
        '--seed',
        '3',
        '--stable-order',
        '--max-page-size',
        '30',
      ],
      c.io,
    );
    const [, url] = await c.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)\n/);
    expect(c.out()).toContain('emulator-paid-key');
    expect(c.out()).toContain('emulator-free-key');
    expect(c.out()).toContain(
      `curl -H 'Authorization: Bearer emulator-paid-key' '${url}/backend/api/v1/session/history/2025-03-01/2025-03-01`,
    );
    const res = await get(url!, historyPath('2025-02-27', '2025-02-27', { size: 100 }));
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text)).toMatchObject({ size: 30 });
    expect((await get(url!, historyPath('2024-12-31', '2025-01-01'))).status).toBe(400);
    stop.abort();
    expect(await running).toBe(0);
  });

  it('turns fault flags into faults', async () => {
    const stop = new AbortController();
    const c = captureIo(stop.signal);
    const running = runEmulatorCommand(['--port', '0', '--rate-429', '1', '--retry-after', 'none'], c.io);
    const [, url] = await c.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)\n/);
    const res = await get(url!, '/backend/api/v1/session/active');
    expect(res.status).toBe(429);
    expect(res.headers['retry-after']).toBeUndefined();
    stop.abort();
    expect(await running).toBe(0);
  });

  it.each([
    ['documented', [], 0],
    ['token-filled', ['--live-shape', 'token-filled'], 0.5],
  ] as const)('serves the %s live shape', async (shape, flags, filledShare) => {
    const stop = new AbortController();
    const c = captureIo(stop.signal);
    const running = runEmulatorCommand(['--port', '0', '--now', '2025-03-01T12:00:00Z', ...flags], c.io);
    const [, url] = await c.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)\n/);
    await c.waitFor(/data: [^\n]+\n/);
    expect(c.out().includes('live shape: token-filled')).toBe(shape === 'token-filled');
    const list = JSON.parse((await get(url!, '/backend/api/v1/session/active')).text) as ActiveEntry[];
    // Sessions opened with a virtual token have no token in either shape.
    const plain = list.filter((a) => a.virtualTokenName === null);
    expect(plain.length).toBeGreaterThan(10);
    const filled = plain.filter((a) => a.token !== null);
    if (filledShare === 0) expect(filled).toEqual([]);
    else expect(filled.length / plain.length).toBeGreaterThanOrEqual(filledShare);
    for (const a of filled) expect(a.virtualToken).toBe(`${a.token}-${a.port}`);
    for (const a of list) expect(a.virtualToken.endsWith(`-${a.port}`)).toBe(true);
    stop.abort();
    expect(await running).toBe(0);
  });

  it('turns --scale, --stale-totals, --poison-count and --window-days into emulator behaviour', async () => {
    const stop = new AbortController();
    const c = captureIo(stop.signal);
    const args = ['--port', '0', '--now', '2025-03-01T12:00:00Z', '--stable-order', '--window-days', '59'];
    const running = runEmulatorCommand(
      [...args, '--scale', '3', '--stale-totals', 'floor-pages', '--poison-count', '2'],
      c.io,
    );
    const [, url] = await c.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)\n/);
    await c.waitFor(/data: [^\n]+\n/);
    expect(c.out()).toContain(
      'data: seed 1, window 59 days, scale 3, stale totals: floor-pages, poison: 2 per day, stable order',
    );
    const plain = new AbortController();
    const p = captureIo(plain.signal);
    const baseline = runEmulatorCommand(args, p.io);
    const [, plainUrl] = await p.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)\n/);
    const day = '2025-02-10';
    const count = async (u: string) =>
      (JSON.parse((await get(u, historyPath(day, day, { size: 2000 }))).text) as { content: unknown[] })
        .content.length;
    const base = await count(plainUrl!);
    expect(base).toBeGreaterThan(0);
    // Scale multiplies the day (the visible share stays close), plus the two poison items.
    const scaled = await count(url!);
    expect(scaled).toBeGreaterThan(2 * base);
    const first = JSON.parse((await get(url!, historyPath(day, day, { size: 7 }))).text) as {
      totalElements: number;
    };
    expect(first.totalElements % 7).toBe(0);
    expect((await get(url!, historyPath('2025-01-01', '2025-01-01'))).status).toBe(400);
    stop.abort();
    plain.abort();
    expect(await running).toBe(0);
    expect(await baseline).toBe(0);
  });
});
