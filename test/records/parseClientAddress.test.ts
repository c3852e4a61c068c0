import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { clientPortProblem, parseClientAddress } from '../../lib/archive/records/parseClientAddress.ts';

/**
 * Texts near the service's `[<IPv4>]:<port>`: parts of 1–3 digits up to 255 and some out of form (leading
 * zeros, values past 255, none, a non-ASCII digit), three to five of them; either bracket or none; a port
 * of 0–7 digits (leading zeros, past 65535); a stray character anywhere.
 */
const nearBracketedIpv4 = fc
  .tuple(
    fc.constantFrom('[', '[', '[', '[', '', '(', '[['),
    fc.array(
      fc.oneof(
        { weight: 12, arbitrary: fc.nat(255).map(String) },
        { weight: 1, arbitrary: fc.constantFrom('', '00', '01', '010', '0255', '256', '1000', '٣') },
      ),
      { minLength: 3, maxLength: 5 },
    ),
    fc.constantFrom(']', ']', ']', ']', '', ']]', '.]'),
    fc.option(
      fc.tuple(
        fc.constantFrom(':', ':', ':', '::', ';'),
        fc.oneof(
          fc.nat(70_000).map(String),
          fc.constantFrom('', '0', '00080', '000080', '65535', '65536', '99999'),
          fc.stringMatching(/^[0-9]{0,7}$/),
        ),
      ),
    ),
    fc.option(fc.tuple(fc.nat(30), fc.constantFrom(' ', 'x', ':', '.', '-', '\u0660', '٣'))),
  )
  .map(([open, parts, close, port, stray]) => {
    const text = `${open}${parts.join('.')}${close}${port ? port.join('') : ''}`;
    if (!stray) return text;
    const at = stray[0] % (text.length + 1);
    return text.slice(0, at) + stray[1] + text.slice(at);
  });

describe('parseClientAddress', () => {
  it.each([
    { input: '[5.7.152.215]:48696', address: '5.7.152.215', port: 48696 },
    { input: '[2001:db8::1]:443', address: '2001:db8::1', port: 443 },
    { input: '[::1]:0', address: '::1', port: 0 },
    { input: '[::ffff:1.2.3.4]:65535', address: '::ffff:1.2.3.4', port: 65535 },
    { input: '[2001:db8::1]', address: '2001:db8::1', port: null },
    { input: '[10.0.0.1]', address: '10.0.0.1', port: null },
    { input: '1.2.3.4:80', address: '1.2.3.4', port: 80 },
    { input: '1.2.3.4', address: '1.2.3.4', port: null },
    { input: '2001:db8::1', address: '2001:db8::1', port: null },
    { input: 'fe80::1', address: 'fe80::1', port: null },
    { input: '  [5.7.152.215]:48696 ', address: '5.7.152.215', port: 48696 },
  ])('reads $input as $address port $port', ({ input, address, port }) => {
    expect(parseClientAddress(input)).toEqual({ address, port });
  });

  it.each([
    '',
    'garbage',
    'localhost:80',
    '[not-an-ip]:80',
    '[1.2.3.4]:99999',
    '[1.2.3.4]:',
    '[1.2.3.4]:-1',
    '1.2.3.4:abc',
    '1.2.3.4:123456',
    '999.1.1.1:80',
    '2001:db8::1:443:x',
    '[2001:db8::1]:443:1',
  ])('gives nulls for %j', (input) => {
    expect(parseClientAddress(input)).toEqual({ address: null, port: null });
  });

  it('reads every text as the regular expressions do (a leading space sends a text to them)', () => {
    fc.assert(
      fc.property(fc.oneof(nearBracketedIpv4, fc.string()), (text) => {
        expect(parseClientAddress(text)).toEqual(parseClientAddress(` ${text}`));
        expect(clientPortProblem(text)).toBe(clientPortProblem(` ${text}`));
      }),
      { numRuns: 5000 },
    );
  });
});
