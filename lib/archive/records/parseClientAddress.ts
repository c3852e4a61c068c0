import { isIP } from 'node:net';

/** Address and port of the tunnel client, or nulls when `client_ip` is not one we can read. */
export interface ClientAddress {
  address: string | null;
  port: number | null;
}

const NONE: ClientAddress = { address: null, port: null };
const BRACKETED = /^\[([^\]]+)\](?::(\d{1,5}))?$/;
const IPV4_WITH_PORT = /^([^:]+):(\d{1,5})$/;

/**
 * Splits upstream `client_ip` ("[5.7.152.215]:48696", "[2001:db8::1]:443", "1.2.3.4:80", "2001:db8::1")
 * into an IP literal and a port, so Athena can group by client address. Anything that is not an IP
 * literal with an optional port in 0..65535 gives nulls for both: the raw text stays in `client_ip`.
 */
export function parseClientAddress(clientIp: string): ClientAddress {
  const usualPort = bracketedIpv4Port(clientIp);
  if (usualPort !== NOT_USUAL)
    return {
      address: clientIp.slice(1, clientIp.indexOf(']')),
      port: usualPort === NO_PORT ? null : usualPort,
    };
  const text = clientIp.trim();
  const bracketed = BRACKETED.exec(text);
  if (bracketed) return build(bracketed[1], bracketed[2]);
  if (isIP(text) !== 0) return { address: text, port: null };
  const withPort = IPV4_WITH_PORT.exec(text);
  if (withPort && isIP(withPort[1] ?? '') === 4) return build(withPort[1], withPort[2]);
  return NONE;
}

function build(address: string | undefined, portText: string | undefined): ClientAddress {
  if (address === undefined || isIP(address) === 0) return NONE;
  if (portText === undefined) return { address, port: null };
  const port = Number(portText);
  return port <= 65_535 ? { address, port } : NONE;
}

/** `[<anything>]:<digits>` or `<IPv4>:<digits>`, with the port digits unbounded so overflows are seen. */
const ANY_PORT = /^(?:\[[^\]]+\]|\d{1,3}(?:\.\d{1,3}){3}):(\d+)$/;

/**
 * Why `client_ip` carries an impossible port (outside 0..65535, e.g. `[1.2.3.4]:3000000000`), or
 * undefined. Text that is not an address with a port at all is not judged here: it is kept raw.
 */
export function clientPortProblem(clientIp: string): string | undefined {
  if (bracketedIpv4Port(clientIp) !== NOT_USUAL) return undefined;
  const match = ANY_PORT.exec(clientIp.trim());
  if (match === null) return undefined;
  const digits = match[1] ?? '';
  return digits.length > 5 || Number(digits) > 65_535
    ? `client_ip port ${digits.length > 12 ? `${digits.slice(0, 12)}…` : digits} is outside 0..65535`
    : undefined;
}

const OPEN = 0x5b; // [
const CLOSE = 0x5d; // ]
const DOT = 0x2e;
const COLON = 0x3a;
const ZERO = 0x30;

/** {@link bracketedIpv4Port} of a text with no port. */
const NO_PORT = -1;
/** {@link bracketedIpv4Port} of any text not in the service's usual form. */
const NOT_USUAL = -2;

/**
 * The form the service writes, `[<IPv4>]` with `:<port>` of 1–5 digits up to 65535 or none, read without a
 * regex, a match array or any string (both functions above read every record's `client_ip`): its port,
 * {@link NO_PORT}, or {@link NOT_USUAL} for any other text, which the regexes then read. An IPv4 part is
 * 1–3 digits up to 255 with no leading zero, as `isIP` takes it.
 */
function bracketedIpv4Port(text: string): number {
  const n = text.length;
  if (n < 9 || text.charCodeAt(0) !== OPEN) return NOT_USUAL;
  let i = 1;
  for (let part = 0; part < 4; part++) {
    if (part > 0) {
      if (text.charCodeAt(i) !== DOT) return NOT_USUAL;
      i++;
    }
    const start = i;
    let value = 0;
    for (let digit = text.charCodeAt(i) - ZERO; digit >= 0 && digit <= 9; digit = text.charCodeAt(i) - ZERO) {
      if (i - start === 3) return NOT_USUAL;
      value = value * 10 + digit;
      i++;
    }
    const digits = i - start;
    if (digits === 0 || value > 255 || (digits > 1 && text.charCodeAt(start) === ZERO)) return NOT_USUAL;
  }
  if (text.charCodeAt(i) !== CLOSE) return NOT_USUAL;
  if (++i === n) return NO_PORT;
  if (text.charCodeAt(i++) !== COLON || n - i < 1 || n - i > 5) return NOT_USUAL;
  let port = 0;
  for (; i < n; i++) {
    const digit = text.charCodeAt(i) - ZERO;
    if (digit < 0 || digit > 9) return NOT_USUAL;
    port = port * 10 + digit;
  }
  return port <= 65_535 ? port : NOT_USUAL;
}
