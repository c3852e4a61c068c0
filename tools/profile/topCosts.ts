/** Self time per function (and per file) of a V8 `.cpuprofile`, largest first. */

interface CpuProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

export interface CpuProfile {
  nodes: CpuProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface Cost {
  name: string;
  ms: number;
  share: number;
}

/**
 * Sums each sample's time delta onto the node it hit, grouped by `key` of that node; with `only`, the
 * samples whose node it refuses are left out of the sums (shares stay of the whole profile).
 */
export function topCosts(
  profile: CpuProfile,
  key: (frame: CpuProfileNode['callFrame']) => string,
  limit = 25,
  only?: (nodeId: number) => boolean,
): Cost[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const totals = new Map<string, number>();
  let all = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const node = byId.get(profile.samples[i] as number);
    const us = profile.timeDeltas[i] ?? 0;
    if (!node) continue;
    all += us;
    if (only && !only(node.id)) continue;
    const k = key(node.callFrame);
    totals.set(k, (totals.get(k) ?? 0) + us);
  }
  return ranked(totals, all, limit);
}

/** The `limit` largest of `totals` (µs by name) as costs, shares of `all` µs. */
function ranked(totals: Map<string, number>, all: number, limit = Number.POSITIVE_INFINITY): Cost[] {
  return [...totals]
    .sort((a, b) => b[1] - a[1])
    .slice(0, limit)
    .map(([name, us]) => ({ name, ms: Math.round(us / 1000), share: Math.round((us / all) * 1000) / 10 }));
}

/** `function (file:line)` with the repository or node_modules prefix cut. */
export function byFunction(frame: CpuProfileNode['callFrame']): string {
  return `${frame.functionName || '(anonymous)'} (${shortUrl(frame.url)}:${frame.lineNumber + 1})`;
}

/** The file (or package) a frame belongs to. */
export function byFile(frame: CpuProfileNode['callFrame']): string {
  const url = shortUrl(frame.url);
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  return pkg ? `npm:${pkg[1]}` : url || `(${frame.functionName || 'native'})`;
}

function shortUrl(url: string): string {
  return url.replace(/^file:\/\//, '').replace(/^.*?\/(lib|bench|functions|node_modules)\//, '$1/');
}

/** A stage of a run, named by the functions that enter it (matched against `name url` of a frame). */
export type Stage = readonly [label: string, entry: RegExp];

/**
 * The stages of a history walk, each entered through the functions its pattern names. A sample is put
 * in the stage of the innermost frame on its stack that enters one (so the `session_id` hash inside
 * `row()` is the row's, and `row()` inside the drafts' `add` is the row's too); V8's own entries
 * (garbage collector, idle, program) are stages of their own, and anything else is `other`.
 */
export const RUN_STAGES: readonly Stage[] = [
  ['zlib (GZIP)', /^(processChunkSync|zlibBufferSync) node:zlib/],
  ['Parquet encoding (without zlib)', /^(writeHistoryRowGroup|writeRowGroup|finishFile) /],
  [
    'fetch, body and JSON.parse',
    /^(requestJsonOnce|readBodyBytes|parseJsonBytes|parseInPieces|contentHoldsMoreThan) /,
  ],
  ['wire check', /^(parseHistoryPage|plainHistoryRecord|validateHistoryRecord) /],
  ['keying (instants, token HMACs, record_id)', /^(KeyedRecord|keyRecord|recordKey) /],
  ['row (session_id, values)', /^row /],
  ['hand-over to the worker', /^(postMessage|handle) /],
  ['dedupe, drafts and chunks', /^(#addTo|add|push|append) /],
  ['active snapshot', /^snapshotActive /],
  ['commit and digest', /^(commitAll|commitDraft|appendDigest|appendDigestSafely) /],
  ['module loading', /^(compileSourceTextModule|wrapSafe|compileForInternalLoader) /],
];

const V8_ENTRIES = new Set(['(garbage collector)', '(idle)', '(program)']);

/** Time per stage of `stages` (see {@link RUN_STAGES}), largest first; every sample is counted once. */
export function stageCosts(profile: CpuProfile, stages: readonly Stage[] = RUN_STAGES): Cost[] {
  const classify = stageOfNode(profile, stages);
  const totals = new Map<string, number>();
  let all = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const us = profile.timeDeltas[i] ?? 0;
    all += us;
    const stage = classify(profile.samples[i] as number);
    totals.set(stage, (totals.get(stage) ?? 0) + us);
  }
  return ranked(totals, all);
}

/** The stage (see {@link stageCosts}) of a node of `profile`, by its id. */
export function stageOfNode(
  profile: CpuProfile,
  stages: readonly Stage[] = RUN_STAGES,
): (nodeId: number) => string {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  // Each node's stage, worked out once: a sample's is its node's.
  const stageOf = new Map<number, string>();
  const classify = (id: number): string => {
    const known = stageOf.get(id);
    if (known !== undefined) return known;
    const node = byId.get(id);
    let stage = 'other';
    if (node) {
      const name = node.callFrame.functionName || '(anonymous)';
      const hit = V8_ENTRIES.has(name)
        ? name
        : stages.find(([, entry]) => entry.test(`${name} ${node.callFrame.url}`))?.[0];
      const up = parent.get(id);
      stage = hit ?? (up === undefined ? 'other' : classify(up));
    }
    stageOf.set(id, stage);
    return stage;
  };
  return classify;
}

/**
 * The samples of `profile` from the first to the last that fell in `entry` (by default the fetch stage:
 * `requestJsonOnce`, `readBodyBytes`, `parseJsonBytes`), as a sample filter: the walk's window, without start-up and the end,
 * so its costs divided by the pages fetched are what a page costs while a walk runs.
 */
export function windowOf(
  profile: CpuProfile,
  entry: RegExp = /^(requestJsonOnce|readBodyBytes|parseJsonBytes|parseInPieces|contentHoldsMoreThan) /,
): { first: number; last: number; ms: number } | undefined {
  const inEntry = stageOfNode(profile, [['entry', entry]]);
  let first = -1;
  let last = -1;
  for (let i = 0; i < profile.samples.length; i++) {
    if (inEntry(profile.samples[i] as number) !== 'entry') continue;
    if (first < 0) first = i;
    last = i;
  }
  if (first < 0) return undefined;
  let us = 0;
  for (let i = first; i <= last; i++) us += profile.timeDeltas[i] ?? 0;
  return { first, last, ms: us / 1000 };
}

/** The samples of `profile` kept: those with an index in `first..last`. */
export function slice(profile: CpuProfile, first: number, last: number): CpuProfile {
  return {
    nodes: profile.nodes,
    samples: profile.samples.slice(first, last + 1),
    timeDeltas: profile.timeDeltas.slice(first, last + 1),
  };
}

/**
 * Self time by the nearest frame of the project (lib/, functions/) or of undici above each sample's node,
 * joined to the sample's own function: `leaf ← caller`, so native or Node frames (a socket write, a
 * `TextDecoder`) are charged to the code that asked for them.
 */
export function byCaller(profile: CpuProfile, limit = 25): Cost[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const owner = (id: number): string => {
    for (let up = parent.get(id); up !== undefined; up = parent.get(up)) {
      const frame = byId.get(up)?.callFrame;
      if (frame && /\/(lib|functions)\/|undici/.test(frame.url)) return byFunction(frame);
    }
    return '(no caller of ours)';
  };
  const totals = new Map<string, number>();
  let all = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i] as number;
    const us = profile.timeDeltas[i] ?? 0;
    all += us;
    const node = byId.get(id);
    if (!node || V8_ENTRIES.has(node.callFrame.functionName)) continue;
    const k = `${byFunction(node.callFrame)} ← ${owner(id)}`;
    totals.set(k, (totals.get(k) ?? 0) + us);
  }
  return ranked(totals, all, limit);
}

/**
 * `profile` with each sample's time capped at twice the median sample time: a sample's time delta is wall
 * time since the one before, so under a CPU quota or on a busy machine it also holds the time the thread
 * waited for a CPU (a throttled period charged to whatever ran when the quota ran out). Capped, each
 * sample counts about one sampling interval of CPU, and the costs read as CPU rather than wall time.
 */
export function cpuTimed(profile: CpuProfile): CpuProfile {
  const sorted = [...profile.timeDeltas].filter((d) => d > 0).sort((a, b) => a - b);
  const cap = 2 * (sorted[Math.floor(sorted.length / 2)] ?? 0);
  return { ...profile, timeDeltas: profile.timeDeltas.map((d) => Math.min(Math.max(d, 0), cap)) };
}
