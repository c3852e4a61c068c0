import type { Agent, Dispatcher } from 'undici';
import apiRequest from 'undici/lib/api/api-request.js';
import UndiciAgent from 'undici/lib/dispatcher/agent.js';

/**
 * undici's keep-alive `Agent` with its `request` API, loaded from the two modules that make it rather
 * than from the package index. The index also loads fetch, WebSocket, EventSource, the caches and the
 * mocks (half of undici's bytes), and touches `globalThis.Headers`, which loads Node's own copy of
 * undici as well: on the Lambda that was about 40 ms of cold start (bench/PROFILE.md). The code that
 * runs is undici's own, so timeouts, errors and body handling are the same as with the index's Agent.
 */
export function createUndiciAgent(options: Agent.Options): Dispatcher {
  const agent = new UndiciAgent(options);
  // The index puts `request` on Dispatcher.prototype; here it is bound to this one agent.
  return Object.assign(agent, {
    request: (opts: Dispatcher.RequestOptions) => apiRequest.call(agent, opts),
  }) as unknown as Dispatcher;
}
