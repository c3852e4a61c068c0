import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { strictBase64 } from '../../lib/archive/digest/strictBase64.ts';

describe('strictBase64', () => {
  it('decodes canonical standard base64 of any bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 100 }), (bytes) => {
        expect(strictBase64(Buffer.from(bytes).toString('base64'))).toEqual(bytes);
      }),
    );
  });

  const sig = Buffer.from([0xfb, 0xff, 0xbf, 0x01, 0x02]).toString('base64'); // '+/+/AQI='
  it.each([
    ['unpadded', sig.replace(/=+$/, '')],
    ['URL-safe', sig.replace(/\+/g, '-').replace(/\//g, '_')],
    ['padding doubled', `${sig}=`],
    ['a line break', `${sig.slice(0, 4)}\n${sig.slice(4)}`],
    ['a space', ` ${sig}`],
    ['non-zero unused bits', sig.replace('AQI=', 'AQJ=')],
  ])('refuses another spelling of the same bytes: %s', (_name, text) => {
    expect(text).not.toBe(sig);
    expect(strictBase64(text)).toBeUndefined();
  });
});
