import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

/**
 * Each stage of a record's work alone (`bench/encodeAlone.ts`), CPU µs a record, best of `rounds`: what
 * the "CPU beyond the bound ≤ 8 µs" target is measured against. `sha256` (both ids) and `gzip` (the codec
 * on Node 20) are the shares the archive's contract fixes: the ids are pinned, and Node 20 has no zstd.
 */
export interface StageCosts {
  records: number;
  rounds: number;
  node: string;
  us: {
    page: number;
    check: number;
    keys: number;
    row: number;
    sha256: number;
    encode: number;
    gzip: number;
  };
}

const runTs = fileURLToPath(new URL('../bin/run-ts.js', import.meta.url));

/**
 * Runs `encodeAlone.ts` over the emulator's dataset scaled ×`scale`, in a process of its own (it wraps
 * two builtins before the archive's modules load), and returns its figures.
 */
export async function stageCosts(scale: number, rounds: number): Promise<StageCosts> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [runTs, 'bench/encodeAlone.ts', String(scale), String(rounds)],
    { maxBuffer: 1 << 24 },
  );
  const line = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as StageCosts & { bench?: string };
  if (line.bench !== 'encode-alone')
    throw new Error(`encodeAlone printed no figures: ${stdout.slice(0, 200)}`);
  const { records, rounds: measured, node, us } = line;
  return { records, rounds: measured, node, us };
}
