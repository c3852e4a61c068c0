/** Self time per function (and per file) of a V8 `.cpuprofile`, largest first. */

interface CpuProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: CpuProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface Cost {
  name: string;
  ms: number;
  share: number;
}

/** Sums each sample's time delta onto the node it hit, grouped by `key` of that node. */
export function topCosts(
  profile: CpuProfile,
  key: (frame: CpuProfileNode['callFrame']) => string,
  limit = 25,
): Cost[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const totals = new Map<string, number>();
  let all = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const node = byId.get(profile.samples[i] as number);
    const us = profile.timeDeltas[i] ?? 0;
    if (!node) continue;
    all += us;
    const k = key(node.callFrame);
    totals.set(k, (totals.get(k) ?? 0) + us);
  }
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
