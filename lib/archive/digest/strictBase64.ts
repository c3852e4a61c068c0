/** Standard base64 (RFC 4648 §4): the `+/` alphabet, padded to a multiple of 4 with `=`. */
const STANDARD_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * The bytes of `text` when it is canonical standard base64 (RFC 4648 §4 with padding, no line breaks, the
 * unused bits of the last character zero), else undefined. `Buffer.from(text, 'base64')` also accepts
 * unpadded and URL-safe text, so two spellings of one signature would both verify: the format allows one.
 */
export function strictBase64(text: string): Uint8Array | undefined {
  if (!STANDARD_BASE64.test(text)) return undefined;
  const bytes = Buffer.from(text, 'base64');
  return bytes.toString('base64') === text ? new Uint8Array(bytes) : undefined;
}
