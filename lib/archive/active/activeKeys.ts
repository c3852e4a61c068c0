import type { Day } from '../../foundation/index.ts';
import { archiveKeys } from '../commit/archiveKeys.ts';

/** Object keys of the `active/` dataset (the Glue table `tunnel_active_sessions`), from `archiveKeys`. */
export const activeKeys = {
  prefix: archiveKeys.activePrefix,
  partition: (dt: Day) => archiveKeys.dataOf('active', dt, ''),
  data: (dt: Day, name: string) => archiveKeys.dataOf('active', dt, name),
};
