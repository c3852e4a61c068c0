import type { Day } from '../clock/day.ts';

/**
 * Object keys of the `active/` dataset (the Glue table `tunnel_active_sessions` reads `active/`).
 * Meant to join `archiveKeys` (lib/engine/archiveKeys.ts) when the engine commits active rows.
 */
export const activeKeys = {
  prefix: 'active/',
  partition: (dt: Day) => `active/dt=${dt}/`,
  data: (dt: Day, name: string) => `active/dt=${dt}/${name}`,
};
