/** A UTF-16 surrogate without its pair: a code unit no UTF-8 text (so no Parquet string) can hold. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Where `text` holds a lone surrogate (JSON may write one, `"\ud800"`; `JSON.parse` keeps it), or -1 when
 * it is well-formed Unicode. Parquet stores text as UTF-8, where such a unit turns into U+FFFD: a value
 * holding one would not read back as it was sent.
 */
export function loneSurrogateAt(text: string): number {
  return text.search(LONE_SURROGATE);
}
