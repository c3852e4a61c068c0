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
  const match = ANY_PORT.exec(clientIp.trim());
  if (match === null) return undefined;
  const digits = match[1] ?? '';
  return digits.length > 5 || Number(digits) > 65_535
    ? `client_ip port ${digits.length > 12 ? `${digits.slice(0, 12)}…` : digits} is outside 0..65535`
    : undefined;
}
