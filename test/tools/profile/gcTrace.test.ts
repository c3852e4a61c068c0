import { describe, expect, it } from 'vitest';
import { gcTrace } from '../../../tools/profile/gcTrace.ts';

// Lines as `node --trace-gc-nvp` prints them (fields trimmed), two isolates, among a child's other output.
const OUTPUT = [
  'starting',
  '[2741:0x2706ddb0]     6579 ms: pause=10.4 mutator=44.1 gc=s reduce_memory=0 scavenge=10.07 scavenge.parallel=9.45 background.scavenge.parallel=17.96 background.unmapper=0.04 total_size_before=44392144 allocated=12060552 promoted=2165912 promotion_ratio=15.0%',
  '[2741:0x7f16b4001000]     6601 ms: pause=2.5 mutator=12.0 gc=s reduce_memory=0 background.scavenge.parallel=1.5 allocated=1000 promoted=10',
  '[2741:0x2706ddb0]     7010 ms: pause=3.04 mutator=400.2 gc=mc reduce_memory=0 mark=1.2 background.mark=80.4 background.sweep=3.8 background.evacuate.copy=24.0 background.evacuate.update_pointers=1.4 allocated=5000000 promoted=300',
  '[2741:0x2706ddb0]     7100 ms: pause=1.0 mutator=20.0 gc=mmc background.unmapper=0.5 allocated=7 promoted=0',
  // A counter V8 printed below zero, as an unsigned wrap: left out.
  '[2741:0x2706ddb0]     7200 ms: pause=0.5 mutator=20.0 gc=s allocated=18446744073709549568 promoted=0',
  '{"seconds":1.2}',
].join('\n');

describe('gcTrace', () => {
  it('sums each isolate’s collections, pauses, helper threads and bytes, in the order isolates first collect', () => {
    const [main, worker, ...rest] = gcTrace(OUTPUT);
    expect(rest).toEqual([]);
    expect(main).toMatchObject({ isolate: '0x2706ddb0', scavenges: 3, markCompacts: 1 });
    expect(main?.pauseMs).toBeCloseTo(10.4 + 3.04 + 1.0 + 0.5, 6);
    // Every `background.*` field, and none of the pause's own parts (`scavenge`, `mark`).
    expect(main?.backgroundMs).toBeCloseTo(17.96 + 0.04 + 80.4 + 3.8 + 24.0 + 1.4 + 0.5, 6);
    expect(main?.promotedBytes).toBe(2165912 + 300);
    expect(main?.allocatedBytes).toBe(12060552 + 5000000 + 7);
    expect(worker).toEqual({
      isolate: '0x7f16b4001000',
      scavenges: 1,
      markCompacts: 0,
      pauseMs: 2.5,
      backgroundMs: 1.5,
      promotedBytes: 10,
      allocatedBytes: 1000,
    });
  });

  it('gives nothing for output with no collector lines', () => {
    expect(gcTrace('[12:0x1] 5 ms: Scavenge 1.0 (2.0) -> 0.5 (2.0) MB\n{"seconds":1}')).toEqual([]);
  });
});
