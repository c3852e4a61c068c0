import { describe, expect, it } from 'vitest';
import {
  byFunction,
  type CpuProfile,
  stageCosts,
  stageOfNode,
  topCosts,
} from '../../../tools/profile/topCosts.ts';

/** A profile from a parent map: `[id, functionName, url, parent]`, and samples as `[node, µs]`. */
function profileOf(
  nodes: [number, string, string, number | null][],
  samples: [number, number][],
): CpuProfile {
  return {
    nodes: nodes.map(([id, functionName, url]) => ({
      id,
      callFrame: { functionName, url, lineNumber: 0 },
      children: nodes.filter(([, , , parent]) => parent === id).map(([child]) => child),
    })),
    samples: samples.map(([node]) => node),
    timeDeltas: samples.map(([, us]) => us),
  };
}

const WALK = 'file:///repo/node_modules/.cache/tunnel-archiver/b/archiverChild.js';
// A walk as the main thread runs it: keying and the row both hash; the row is built inside the drafts' add.
const PROFILE = profileOf(
  [
    [1, '(root)', '', null],
    [2, 'absorb', WALK, 1],
    [3, 'keyRecord', WALK, 2],
    [4, 'hash', 'node:internal/crypto/hash', 3],
    [5, '#addTo', WALK, 2],
    [6, 'row', WALK, 5],
    [7, 'hash', 'node:internal/crypto/hash', 6],
    [8, '(garbage collector)', '', 1],
    [9, '(idle)', '', 1],
    [10, 'somethingElse', WALK, 1],
    [11, 'writeHistoryRowGroup', WALK, 1],
    [12, 'zlibBufferSync', 'node:zlib', 11],
    [13, 'processChunkSync', 'node:zlib', 12],
  ],
  [
    [3, 100],
    [4, 300],
    [5, 50],
    [6, 70],
    [7, 130],
    [8, 200],
    [9, 100],
    [2, 20],
    [10, 30],
    [11, 40],
    [13, 60],
    [4, 100],
  ],
);

describe('stageCosts', () => {
  it("puts each sample in the stage of the innermost frame that enters one, V8's own entries apart", () => {
    const stageOf = stageOfNode(PROFILE);
    expect([3, 4, 7, 6, 5, 2, 10, 8, 9, 11, 13].map(stageOf)).toEqual([
      'keying (instants, token HMACs, record_id)',
      'keying (instants, token HMACs, record_id)',
      'row (session_id, values)',
      'row (session_id, values)',
      'dedupe, drafts and chunks',
      'other',
      'other',
      '(garbage collector)',
      '(idle)',
      'Parquet encoding (without zlib)',
      'zlib (GZIP)',
    ]);
  });

  it('counts every sample once: the shares (each rounded) add up to the whole, largest first', () => {
    // Scaled so each stage is whole milliseconds.
    const scaled = { ...PROFILE, timeDeltas: PROFILE.timeDeltas.map((us) => us * 100) };
    const costs = stageCosts(scaled);
    expect(costs.map((c) => [c.name, c.ms])).toEqual([
      ['keying (instants, token HMACs, record_id)', 50],
      ['row (session_id, values)', 20],
      ['(garbage collector)', 20],
      ['(idle)', 10],
      ['zlib (GZIP)', 6],
      ['dedupe, drafts and chunks', 5],
      ['other', 5],
      ['Parquet encoding (without zlib)', 4],
    ]);
    expect(costs.reduce((sum, c) => sum + c.share, 0)).toBeCloseTo(100, 0);
  });
});

describe('topCosts', () => {
  it('sums self time by function; `only` keeps the samples of some nodes, shares of the whole', () => {
    const scaled = { ...PROFILE, timeDeltas: PROFILE.timeDeltas.map((us) => us * 100) };
    const all = topCosts(scaled, byFunction, 3);
    expect(all.map((c) => [c.name, c.ms])).toEqual([
      ['hash (node:internal/crypto/hash:1)', 53],
      ['(garbage collector) (:1)', 20],
      ['keyRecord (node_modules/.cache/tunnel-archiver/b/archiverChild.js:1)', 10],
    ]);
    const stageOf = stageOfNode(scaled);
    const other = topCosts(scaled, byFunction, 10, (id) => stageOf(id) === 'other');
    expect(other.map((c) => [c.name, c.ms, c.share])).toEqual([
      ['somethingElse (node_modules/.cache/tunnel-archiver/b/archiverChild.js:1)', 3, 2.5],
      ['absorb (node_modules/.cache/tunnel-archiver/b/archiverChild.js:1)', 2, 1.7],
    ]);
  });
});
