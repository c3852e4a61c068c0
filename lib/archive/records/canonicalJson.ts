/**
 * JSON with object keys sorted at every depth and arrays kept in order, so two values that differ only
 * in key order serialise to the same text (the basis of every hash in this folder).
 * `undefined` (and function or symbol) object members are left out and such array items become `null`,
 * as `JSON.stringify` does; a `Date` is written as `JSON.stringify` writes it (its ISO text).
 * A `__proto__` key (which `JSON.parse` creates as an own property) is kept as data, never as a prototype.
 *
 * Iterative, with its own stack: a value nested to any depth (a hostile record 100,000 levels deep) is
 * written, never a `RangeError` (V8's `JSON.stringify` gives up at a few thousand levels).
 */
export function canonicalJson(value: unknown): string {
  const top = leafText(value);
  if (top !== CONTAINER) return top ?? 'null';
  const stack: Frame[] = [frameOf(value as object)];
  let out = (stack[0] as Frame).items ? '[' : '{';
  while (stack.length > 0) {
    const frame = stack[stack.length - 1] as Frame;
    if (frame.next >= frame.length) {
      out += frame.items ? ']' : '}';
      stack.pop();
      continue;
    }
    const index = frame.next++;
    let member: unknown;
    let text: string | undefined | typeof CONTAINER;
    if (frame.items) {
      member = frame.items[index];
      text = leafText(member) ?? 'null';
      if (index > 0) out += ',';
    } else {
      const key = (frame.keys as string[])[index] as string;
      member = (frame.object as Record<string, unknown>)[key];
      text = leafText(member);
      if (text === undefined) continue;
      out += `${frame.written++ > 0 ? ',' : ''}${JSON.stringify(key)}:`;
    }
    if (text !== CONTAINER) {
      out += text;
      continue;
    }
    const inner = frameOf(member as object);
    out += inner.items ? '[' : '{';
    stack.push(inner);
  }
  return out;
}

const CONTAINER = Symbol('container');

/** One array or object being written: its items (an array) or its sorted keys, and how far it got. */
interface Frame {
  items: readonly unknown[] | undefined;
  object: object | undefined;
  keys: string[] | undefined;
  length: number;
  next: number;
  /** Members written so far (an object's left-out members take no comma). */
  written: number;
}

function frameOf(value: object): Frame {
  if (Array.isArray(value))
    return { items: value, object: undefined, keys: undefined, length: value.length, next: 0, written: 0 };
  const keys = memberOrder(Object.keys(value).sort());
  return { items: undefined, object: value, keys, length: keys.length, next: 0, written: 0 };
}

/**
 * Sorted keys in the order an object built from them enumerates them (and so the order the ids were
 * first written in): array-index keys (`"0"`, `"17"`) first, in numeric order, then the others as sorted.
 */
function memberOrder(sorted: string[]): string[] {
  if (!sorted.some(isArrayIndex)) return sorted;
  const indices = sorted.filter(isArrayIndex);
  indices.sort((a, b) => Number(a) - Number(b));
  for (const key of sorted) if (!isArrayIndex(key)) indices.push(key);
  return indices;
}

function isArrayIndex(key: string): boolean {
  return /^(?:0|[1-9]\d{0,9})$/.test(key) && Number(key) < 4_294_967_295;
}

/** The JSON text of a value that holds no other, `CONTAINER` for one that does, undefined for one left out. */
function leafText(value: unknown): string | undefined | typeof CONTAINER {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
    case 'number':
    case 'boolean':
      return JSON.stringify(value);
    case 'object':
      return value instanceof Date ? JSON.stringify(value) : CONTAINER;
    case 'bigint':
      // As JSON.stringify: a BigInt has no JSON form.
      throw new TypeError('Do not know how to serialize a BigInt');
    default:
      return undefined;
  }
}

/** `target[key] = value` that also works for `__proto__`. */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
