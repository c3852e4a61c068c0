/** The median of `xs` (for an even count, the lower of the two middle values); 0 for none. */
export function median(xs: readonly number[]): number {
  return [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)] ?? 0;
}
