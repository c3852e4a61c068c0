import { describe, expect, it } from 'vitest';
import { MAX_WALK_FILES, nextWalkFiles } from '../../lib/archive/walk/nextWalkFiles.ts';

describe('nextWalkFiles', () => {
  it("lists the earlier runs' files, then this run's", () => {
    expect(nextWalkFiles(['a', 'b'], ['c'])).toEqual(['a', 'b', 'c']);
  });

  it("drops the earlier runs' files when their ids were not carried", () => {
    expect(nextWalkFiles(undefined, ['c', 'd'])).toEqual(['c', 'd']);
  });

  it('keeps the most recent files past the cap (the oldest are read back instead)', () => {
    const earlier = Array.from({ length: MAX_WALK_FILES }, (_, i) => `e${i}`);
    const next = nextWalkFiles(earlier, ['n0', 'n1']);
    expect(next).toHaveLength(MAX_WALK_FILES);
    expect(next.slice(-2)).toEqual(['n0', 'n1']);
    expect(next).not.toContain('e0');
    expect(next).not.toContain('e1');
    expect(next).toContain('e2');
  });
});
