/**
 * A value with every null (and undefined) left out, recursively: OCSF has no null, an absent attribute
 * is simply not there. An object or array that is empty once stripped is left out too. BigInts (DuckDB's
 * longs) become numbers: OCSF times are epoch milliseconds, well inside the safe integer range.
 */
export function stripNulls(value: unknown): unknown {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'bigint') return Number(value);
  if (Array.isArray(value)) {
    const items = value.map(stripNulls).filter((v) => v !== undefined);
    return items.length === 0 ? undefined : items;
  }
  if (typeof value === 'object' && !(value instanceof Date)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const s = stripNulls(v);
      if (s !== undefined) out[k] = s;
    }
    return Object.keys(out).length === 0 ? undefined : out;
  }
  return value;
}
