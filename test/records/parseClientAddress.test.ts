import { describe, expect, it } from 'vitest';
import { parseClientAddress } from '../../lib/archive/records/parseClientAddress.ts';

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
});
