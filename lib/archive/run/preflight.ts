import type { Day } from '../../foundation/index.ts';
import type { UpstreamApi } from '../upstream/upstreamApi.ts';

/**
 * One cheap authenticated call before anything is written: a rejected key (401) or an unpaid plan
 * (403) fails here with its own error code, so a bad configuration leaves no trace.
 */
export async function preflight(api: UpstreamApi, today: Day, signal?: AbortSignal): Promise<void> {
  await api.historyPage(today, today, 0, 1, signal ? { signal } : {});
}
