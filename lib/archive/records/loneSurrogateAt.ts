/** A UTF-16 surrogate without its pair: a code unit no UTF-8 text (so no Parquet string) can hold. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** `String.prototype.isWellFormed` (ES2024, Node 20), typed here since the project's lib is ES2023. */
type MaybeWellFormed = string & { isWellFormed?: () => boolean };
const HAS_WELL_FORMED = typeof (String.prototype as MaybeWellFormed).isWellFormed === 'function';

/**
 * Where `text` holds a lone surrogate (JSON may write one, `"\ud800"`; `JSON.parse` keeps it), or -1 when
 * it is well-formed Unicode. Parquet stores text as UTF-8, where such a unit turns into U+FFFD: a value
 * holding one would not read back as it was sent. Every string of every record is asked: the engine's own
 * `isWellFormed` answers the usual case, and only a text that is not searches for the index.
 */
export function loneSurrogateAt(text: string): number {
  if (HAS_WELL_FORMED && (text as MaybeWellFormed).isWellFormed?.()) return -1;
  return text.search(LONE_SURROGATE);
}
