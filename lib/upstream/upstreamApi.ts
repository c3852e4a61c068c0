import type { Day } from '../clock/day.ts';
import type { ActiveSession, HistoryPage } from '../records/schemas.ts';

export interface RequestOptions {
  signal?: AbortSignal;
}

/** Port: the read-only tunnel session API, as the engine sees it. */
export interface UpstreamApi {
  listActive(options?: RequestOptions): Promise<ActiveSession[]>;
  /** `GET /backend/api/v1/session/history/<from>/<to>?page=&size=` (both bounds inclusive). */
  historyPage(from: Day, to: Day, page: number, size: number, options?: RequestOptions): Promise<HistoryPage>;
}
