import type { ByteWriter } from 'hyparquet-writer';

const BLOCK_SIZE = 128;
const MINIBLOCKS_PER_BLOCK = 4;
const VALUES_PER_MINIBLOCK = BLOCK_SIZE / MINIBLOCKS_PER_BLOCK;

/**
 * Widest spread of values written here: deltas then span at most twice this, and a delta shifted by the
 * up to 7 bits still pending in the packing buffer stays below 2^53, so Number arithmetic is exact.
 */
export const MAX_SAFE_SPREAD = 2 ** 45;

/**
 * DELTA_BINARY_PACKED of an INT64 column whose values are safe integers (epoch milliseconds), in Number
 * arithmetic: the same bytes as hyparquet-writer's BigInt encoder (`deltaBinaryPack` of INT64 values
 * beyond 32 bits), which allocates a BigInt for every delta, shift and byte (test:
 * test/parquet/deltaPackSafeIntegers.test.ts compares both over arbitrary columns). Returns false, having
 * written nothing, when a value is not a safe integer or the values spread wider than
 * {@link MAX_SAFE_SPREAD}: the caller then uses the library's encoder.
 */
export function deltaPackSafeIntegers(writer: ByteWriter, values: ArrayLike<unknown>): boolean {
  const count = values.length;
  if (count === 0) return false;
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < count; i++) {
    const v = values[i];
    if (typeof v !== 'number' || !Number.isSafeInteger(v)) return false;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  if (max - min > MAX_SAFE_SPREAD) return false;
  const ints = values as ArrayLike<number>;

  writer.appendVarInt(BLOCK_SIZE);
  writer.appendVarInt(MINIBLOCKS_PER_BLOCK);
  writer.appendVarInt(count);
  writer.appendZigZag(BigInt(ints[0] as number));

  const blockDeltas = new Float64Array(BLOCK_SIZE);
  const bitWidths = new Uint8Array(MINIBLOCKS_PER_BLOCK);
  const packed: (Uint8Array | undefined)[] = [];
  let index = 1;
  while (index < count) {
    const blockEnd = Math.min(index + BLOCK_SIZE, count);
    const blockSize = blockEnd - index;
    let minDelta = 0;
    for (let i = 0; i < blockSize; i++) {
      const delta = (ints[index + i] as number) - (ints[index + i - 1] as number);
      blockDeltas[i] = delta;
      if (i === 0 || delta < minDelta) minDelta = delta;
    }
    writer.appendZigZag(BigInt(minDelta));

    for (let mb = 0; mb < MINIBLOCKS_PER_BLOCK; mb++) {
      const mbStart = mb * VALUES_PER_MINIBLOCK;
      const mbEnd = Math.min(mbStart + VALUES_PER_MINIBLOCK, blockSize);
      let maxAdjusted = 0;
      for (let i = mbStart; i < mbEnd; i++) {
        const adjusted = (blockDeltas[i] as number) - minDelta;
        if (adjusted > maxAdjusted) maxAdjusted = adjusted;
      }
      bitWidths[mb] = bitWidth(maxAdjusted);
    }
    writer.appendBytes(bitWidths);

    for (let mb = 0; mb < MINIBLOCKS_PER_BLOCK; mb++) {
      const width = bitWidths[mb] as number;
      if (width === 0) continue;
      const mbStart = mb * VALUES_PER_MINIBLOCK;
      const mbEnd = Math.min(mbStart + VALUES_PER_MINIBLOCK, blockSize);
      // 32 values, padding included: exactly `width * 4` bytes, least significant bit first.
      let out = packed[width];
      if (out === undefined) {
        out = new Uint8Array(width * 4);
        packed[width] = out;
      }
      let byteIndex = 0;
      let buffer = 0;
      let bitsUsed = 0;
      for (let i = 0; i < VALUES_PER_MINIBLOCK; i++) {
        const adjusted = mbStart + i < mbEnd ? (blockDeltas[mbStart + i] as number) - minDelta : 0;
        // bitsUsed < 8 here and adjusted < 2^46: the sum stays below 2^53.
        buffer += adjusted * 2 ** bitsUsed;
        bitsUsed += width;
        while (bitsUsed >= 8) {
          out[byteIndex++] = buffer % 256;
          buffer = Math.floor(buffer / 256);
          bitsUsed -= 8;
        }
      }
      writer.appendBytes(out);
    }
    index = blockEnd;
  }
  return true;
}

/** Bits needed for a non-negative integer below 2^53. */
function bitWidth(value: number): number {
  if (value === 0) return 0;
  const high = Math.floor(value / 2 ** 32);
  return high > 0 ? 64 - Math.clz32(high) : 32 - Math.clz32(value);
}
