import type { Day } from '../../foundation/index.ts';
import type { ActiveSession, HistoryPage } from '../records/schemas.ts';

export interface RequestOptions {
  signal?: AbortSignal;
  /**
   * The caller's limit on requests in flight. An adapter that talks to a server runs each attempt's
   * exchange (sending the request and reading its body) inside `gate.run`, and parses and validates
   * the body outside it, so the next request can go out while this page is being parsed. An adapter
   * with no exchange of its own (an in-memory fake) may ignore it.
   */
  gate?: RequestGate;
}

/** Admits one exchange with the server at a time per slot of the caller's limit (see `Limiter.runGated`). */
export interface RequestGate {
  run<T>(exchange: () => Promise<T>): Promise<T>;
}

/** Port: the read-only tunnel session API, as the engine sees it. */
export interface UpstreamApi {
  listActive(options?: RequestOptions): Promise<ActiveSession[]>;
  /** `GET /backend/api/v1/session/history/<from>/<to>?page=&size=` (both bounds inclusive). */
  historyPage(from: Day, to: Day, page: number, size: number, options?: RequestOptions): Promise<HistoryPage>;
}
