/** What V8's collector did on one isolate (a thread: the main one, or a worker's), summed over a run. */
export interface IsolateGc {
  /** The isolate's address as V8 prints it; isolates are listed in the order they first collected. */
  isolate: string;
  scavenges: number;
  markCompacts: number;
  /** Milliseconds the isolate's own thread was paused, by every collection. */
  pauseMs: number;
  /** Milliseconds of the collector's helper threads for this isolate (`background.*`), beside the pauses. */
  backgroundMs: number;
  /** Bytes moved from the young generation to the old (`promoted`), summed over scavenges. */
  promotedBytes: number;
  /** Bytes the isolate allocated between collections (`allocated`), summed. */
  allocatedBytes: number;
}

const LINE = /^\[\d+:(0x[0-9a-f]+)\]\s+\d+ ms: .* gc=(\w+) /;
const FIELD = / ([\w.]+)=([\d.]+)/g;

/**
 * The collector's work per isolate from the output of `node --trace-gc-nvp`: one line a collection, whose
 * fields are milliseconds (`pause`, and `background.*`, each a disjoint part of the helper threads' work)
 * or bytes (`promoted`, `allocated`). `gc=s` is a scavenge of the young generation; `gc=mc` a mark-compact
 * (`gc=mmc`, a minor mark-compact, is counted with the scavenges). Lines that are not the collector's are
 * skipped, so a child's whole standard output can be given.
 */
export function gcTrace(output: string): IsolateGc[] {
  const byIsolate = new Map<string, IsolateGc>();
  for (const line of output.split('\n')) {
    const match = LINE.exec(line);
    if (!match) continue;
    const [, isolate = '', kind] = match;
    let gc = byIsolate.get(isolate);
    if (gc === undefined) {
      gc = {
        isolate,
        scavenges: 0,
        markCompacts: 0,
        pauseMs: 0,
        backgroundMs: 0,
        promotedBytes: 0,
        allocatedBytes: 0,
      };
      byIsolate.set(isolate, gc);
    }
    if (kind === 'mc') gc.markCompacts++;
    else gc.scavenges++;
    for (const [, name = '', value] of line.matchAll(FIELD)) {
      const n = Number(value);
      // V8 prints a counter that went below zero as an unsigned wrap (about 1.8e19): not a figure.
      if (!(n <= Number.MAX_SAFE_INTEGER)) continue;
      if (name === 'pause') gc.pauseMs += n;
      else if (name.startsWith('background.')) gc.backgroundMs += n;
      else if (name === 'promoted') gc.promotedBytes += n;
      else if (name === 'allocated') gc.allocatedBytes += n;
    }
  }
  return [...byIsolate.values()];
}
