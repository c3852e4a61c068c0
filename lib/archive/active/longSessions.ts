import type { ActiveObservations } from './activeState.ts';

const DAY_MS = 86_400_000;

/** A live session older than history can show: its observations are its only archive. */
export interface LongSession {
  id: string;
  creationTime: string;
  ageDays: number;
  subdomain: string;
  tokenName: string | null;
  virtualTokenName: string | null;
  userId: number;
}

/**
 * Live sessions open for more than `windowDays − 2` days, oldest first. History is queried by start
 * day inside the window, so once such a session's start leaves the window no history query returns it.
 */
export function longSessions(observations: ActiveObservations, now: Date, windowDays: number): LongSession[] {
  const limitMs = (windowDays - 2) * DAY_MS;
  const out: LongSession[] = [];
  for (const { fields } of Object.values(observations.sessions)) {
    const ageMs = now.getTime() - Date.parse(fields.creation_time);
    if (ageMs <= limitMs) continue;
    out.push({
      id: fields.id,
      creationTime: fields.creation_time,
      ageDays: Math.floor((ageMs / DAY_MS) * 10) / 10,
      subdomain: fields.subdomain,
      tokenName: fields.token_name,
      virtualTokenName: fields.virtual_token_name,
      userId: fields.user_id,
    });
  }
  return out.sort((a, b) => a.creationTime.localeCompare(b.creationTime) || a.id.localeCompare(b.id));
}
