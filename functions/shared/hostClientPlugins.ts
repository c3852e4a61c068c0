import type { MetadataBearer, Pluggable } from '@smithy/types';

/**
 * Where a host process puts plugins for every AWS client the functions build: instrumentation (a call
 * recorder, a tracer) that a preload installs before the handler loads. Lambda installs none, and then no
 * client changes. A global symbol, so a preload outside the bundle reaches the bundled clients.
 */
export const HOST_CLIENT_PLUGINS = Symbol.for('tunnel-archiver.aws-client-plugins');

/** An AWS SDK v3 plugin for any client. */
export type HostClientPlugin = Pluggable<object, MetadataBearer>;

/** The plugins the host installed (none in Lambda). */
export function hostClientPlugins(): HostClientPlugin[] {
  return (globalThis as { [HOST_CLIENT_PLUGINS]?: HostClientPlugin[] })[HOST_CLIENT_PLUGINS] ?? [];
}
