import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../lib/archive/config/loadConfig.ts';
import { ArchiverError } from '../../lib/foundation/errors/archiverError.ts';
import { cleartextProblem, isLoopbackHost } from '../../lib/foundation/url/cleartextUrl.ts';

describe('isLoopbackHost', () => {
  it.each([
    ['localhost', true],
    ['LOCALHOST', true],
    ['api.localhost', true],
    ['127.0.0.1', true],
    ['127.255.3.9', true],
    ['[::1]', true],
    ['128.0.0.1', false],
    ['127.0.0.256', false],
    ['127.0.0.1.example.com', false],
    ['localhost.example.com', false],
    ['10.0.0.1', false],
    ['[::2]', false],
    ['dashboard.pinggy.io', false],
  ])('%s: %s', (host, loopback) => {
    expect(isLoopbackHost(host)).toBe(loopback);
  });
});

describe('TUNNEL_API_BASE_URL', () => {
  it.each([
    'https://dashboard.pinggy.io',
    'https://10.0.0.5:8443/api',
    'http://127.0.0.1:8080',
    'http://localhost:3000/prefix',
    'http://[::1]:8080',
  ])('accepts %s', (url) => {
    expect(loadConfig({ env: { TUNNEL_API_BASE_URL: url } }).baseUrl).toBe(url);
  });

  it.each([
    'http://dashboard.pinggy.io',
    'http://10.0.0.5:8080',
    'http://127.0.0.1.nip.io',
    'HTTP://api.example.com',
  ])('refuses %s: the API key would cross the network in clear', (url) => {
    let caught: unknown;
    try {
      loadConfig({ env: { TUNNEL_API_BASE_URL: url } });
    } catch (error) {
      caught = error;
    }
    expect(ArchiverError.is(caught, 'CONFIG_INVALID')).toBe(true);
    expect((caught as Error).message).toMatch(
      /TUNNEL_API_BASE_URL must be https:\/\/ for .* \(http:\/\/ is accepted only for localhost, 127\.0\.0\.0\/8 and ::1/,
    );
    expect(cleartextProblem(url)).toBeDefined();
  });

  it('names the flag when the URL came from --base-url', () => {
    expect(() => loadConfig({ env: {}, flags: { 'base-url': 'http://api.example.com' } })).toThrow(
      /--base-url must be https:\/\//,
    );
  });
});
