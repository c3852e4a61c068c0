/**
 * JSON with object keys sorted at every depth and arrays kept in order, so two values that differ only
 * in key order serialise to the same text (the basis of every hash in this folder).
 * `undefined` object members are left out and `undefined` array items become `null`, as `JSON.stringify` does.
 * A `__proto__` key (which `JSON.parse` creates as an own property) is kept as data, never as a prototype.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value)) ?? 'null';
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((item) => (item === undefined ? null : sortKeys(item)));
  if (value !== null && typeof value === 'object' && !(value instanceof Date)) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const member = (value as Record<string, unknown>)[key];
      if (member !== undefined) setOwn(out, key, sortKeys(member));
    }
    return out;
  }
  return value;
}

/** `target[key] = value` that also works for `__proto__`. */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
