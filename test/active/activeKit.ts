import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { activeParquetBytes, readActiveRows } from '../../lib/archive/active/activeParquet.ts';
import type { ActiveRow } from '../../lib/archive/active/activeRow.ts';
import type { ActiveState } from '../../lib/archive/active/activeState.ts';
import type { ActiveSession } from '../../lib/archive/records/schemas.ts';
import type { StateStore } from '../../lib/archive/state/statePorts.ts';
import { ArchiverError } from '../../lib/foundation/errors/archiverError.ts';
import { DOCUMENTED_ACTIVE_SESSION } from '../fixtures/documentedValues.ts';

export const TOKEN_KEY = new Uint8Array(32).fill(7);

/** An active session as the seed documents it, named after `id`, with overrides. */
export function session(id: string, extra: Partial<ActiveSession> = {}): ActiveSession {
  return {
    ...DOCUMENTED_ACTIVE_SESSION,
    id,
    virtualToken: `vt-${id}`,
    virtualTokenName: `name-${id}`,
    subdomain: `${id}.a.pinggy.link`,
    ...extra,
  };
}

/**
 * The test stand-in for the engine's exactly-once committer: each commit writes one Parquet file under
 * `<dir>/active/dt=<dt>/` holding only rows whose `row_id` the partition does not hold yet. Faults:
 * `failNext` (nothing written), `crashAfterNext` (written, then the call throws as if the run died).
 */
export class FileRowSink {
  commits = 0;
  failNext = false;
  crashAfterNext = false;
  constructor(readonly dir: string) {}

  commitRows = async (dt: string, rows: readonly ActiveRow[]): Promise<{ written: number }> => {
    if (this.failNext) {
      this.failNext = false;
      throw new ArchiverError('STORE_FAILED', 'injected: commit failed');
    }
    const held = new Set((await this.rows(dt)).map((r) => r.row_id));
    const fresh = rows.filter((r) => !held.has(r.row_id));
    if (fresh.length > 0) {
      const folder = join(this.dir, 'active', `dt=${dt}`);
      await mkdir(folder, { recursive: true });
      this.commits += 1;
      await writeFile(
        join(folder, `part-${String(this.commits).padStart(5, '0')}.parquet`),
        await activeParquetBytes(fresh),
      );
    }
    if (this.crashAfterNext) {
      this.crashAfterNext = false;
      throw new Error('injected: crash after commit');
    }
    return { written: fresh.length };
  };

  async rows(dt?: string): Promise<ActiveRow[]> {
    const root = join(this.dir, 'active');
    const dts = dt === undefined ? await readdir(root).catch(() => []) : [`dt=${dt}`];
    const out: ActiveRow[] = [];
    for (const d of dts.sort()) {
      const files = await readdir(join(root, d)).catch(() => [] as string[]);
      for (const f of files.sort()) {
        out.push(...(await readActiveRows(new Uint8Array(await readFile(join(root, d, f))))));
      }
    }
    return out;
  }
}

type ActivePort = Pick<StateStore, 'getActiveState' | 'putActiveState'>;

/**
 * In-memory active state with the same versioned contract as the DynamoDB adapter, plus faults:
 * `failNextPut` (not applied) and `lostNextPut` (applied, but the caller sees an error).
 */
export class MemoryActiveState implements ActivePort {
  item: ActiveState | undefined;
  failNextPut = false;
  lostNextPut = false;
  puts = 0;

  getActiveState = async (): Promise<ActiveState | undefined> =>
    this.item === undefined ? undefined : structuredClone(this.item);

  putActiveState = async (state: ActiveState): Promise<ActiveState> => {
    this.puts += 1;
    if (this.failNextPut) {
      this.failNextPut = false;
      throw new ArchiverError('STORE_FAILED', 'injected: state write failed');
    }
    if ((this.item?.version ?? 0) !== state.version) {
      throw new ArchiverError('CONFLICT', `active state changed since version ${state.version}`);
    }
    this.item = structuredClone({ ...state, version: state.version + 1 });
    if (this.lostNextPut) {
      this.lostNextPut = false;
      throw new ArchiverError('STORE_FAILED', 'injected: state written, response lost');
    }
    return structuredClone(this.item);
  };
}

/** `FileRowSink`'s contract in memory (dedupe by `row_id` per partition, same faults), for property tests. */
export class MemoryRowSink {
  readonly partitions = new Map<string, Map<string, ActiveRow>>();
  failNext = false;
  crashAfterNext = false;

  commitRows = async (dt: string, rows: readonly ActiveRow[]): Promise<{ written: number }> => {
    if (this.failNext) {
      this.failNext = false;
      throw new ArchiverError('STORE_FAILED', 'injected: commit failed');
    }
    const part = this.partitions.get(dt) ?? new Map<string, ActiveRow>();
    this.partitions.set(dt, part);
    let written = 0;
    for (const row of rows) {
      if (part.has(row.row_id)) continue;
      part.set(row.row_id, row);
      written += 1;
    }
    if (this.crashAfterNext) {
      this.crashAfterNext = false;
      throw new Error('injected: crash after commit');
    }
    return { written };
  };

  rows(): ActiveRow[] {
    return [...this.partitions.values()].flatMap((p) => [...p.values()]);
  }
}
