/**
 * The values of a string column as byte views into one buffer, when every string in it is ASCII;
 * `undefined` otherwise (a non-string value, a non-ASCII character, or no string at all). Nulls stay
 * null. For ASCII, UTF-8 is one byte a character, so a view holds exactly what `TextEncoder` would give
 * and its `byteLength` is the string's `length`, which a Parquet writer uses to cut pages: handed views,
 * hyparquet-writer writes the same bytes as handed the strings, without allocating a buffer for each
 * value (about 3× cheaper a value on this machine).
 */
export function asciiByteViews(values: readonly unknown[]): unknown[] | undefined {
  const strings: string[] = [];
  for (const value of values) {
    if (typeof value === 'string') strings.push(value);
    else if (value !== null) return undefined;
  }
  if (strings.length === 0) return undefined;
  const joined = strings.join('');
  // More UTF-8 bytes than UTF-16 units means a character past ASCII (a lone surrogate included).
  if (Buffer.byteLength(joined, 'utf8') !== joined.length) return undefined;
  const bytes = Buffer.from(joined, 'latin1');
  const views: unknown[] = new Array(values.length);
  let offset = bytes.byteOffset;
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    if (value === null) {
      views[i] = null;
      continue;
    }
    const length = (value as string).length;
    views[i] = new Uint8Array(bytes.buffer, offset, length);
    offset += length;
  }
  return views;
}
