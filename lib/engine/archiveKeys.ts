import type { Day } from '../clock/day.ts';

/** Object key layout under the destination root. `history/` is the Athena table location. */
export const archiveKeys = {
  historyPrefix: 'history/',
  data: (dt: Day, name: string) => `history/dt=${dt}/${name}`,
  staging: (runId: string, dt: Day, name: string) => `_staging/${runId}/dt=${dt}/${name}`,
  quarantine: (day: Day, id: string) => `quarantine/day=${day}/${id}.json`,
};
