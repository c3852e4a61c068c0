/**
 * Whether `hostname` (as `URL.hostname` gives it: IPv6 in brackets) names this machine: `localhost` (or a
 * name under `.localhost`), 127.0.0.0/8, or ::1. Traffic to it never leaves the host.
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (host === '[::1]' || host === '::1') return true;
  const v4 = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  return v4?.slice(1).every((octet) => Number(octet) <= 255) ?? false;
}

/**
 * Why `text` may not carry a secret in clear, or undefined: an `http://` URL is accepted only for a
 * loopback host (`isLoopbackHost`: an emulator or a local proxy), since the API key travels in its
 * Authorization header; anything else must be `https://`.
 */
export function cleartextProblem(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' || isLoopbackHost(url.hostname)) return undefined;
  return `must be https:// for ${url.hostname} (http:// is accepted only for localhost, 127.0.0.0/8 and ::1: the API key would cross the network in clear)`;
}
