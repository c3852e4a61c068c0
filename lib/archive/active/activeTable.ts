import { terminalText } from '../../foundation/index.ts';
import type { ActiveSession } from '../records/schemas.ts';
import { toEpochMs } from '../records/toEpochMs.ts';

const DAY_MS = 86_400_000;

/** One live tunnel as `tunnel-archiver active` shows it. Token values are never shown, only names. */
export interface ActiveTableRow {
  id: string;
  userId: number;
  tokenId: number;
  name: string | null;
  tokenName: string | null;
  virtualTokenName: string | null;
  subdomain: string;
  customdomain: string | null;
  mode: string;
  port: number;
  creationTime: string;
  lastUpdateTime: string;
  ageDays: number;
  /** Open longer than (window − 2) days: history will never list it. */
  long: boolean;
}

/** The live tunnels, oldest first, with their age and the long-session flag. */
export function activeTable(
  sessions: readonly ActiveSession[],
  now: Date,
  windowDays: number,
): ActiveTableRow[] {
  const limitMs = (windowDays - 2) * DAY_MS;
  return sessions
    .map((s) => {
      const created = toEpochMs(s.creationTimestamp);
      const tokenName = typeof s.tokenName === 'string' ? s.tokenName : null;
      const virtualTokenName = typeof s.virtualTokenName === 'string' ? s.virtualTokenName : null;
      return {
        id: s.id,
        userId: s.userId,
        tokenId: s.tokenId,
        name: virtualTokenName ?? tokenName,
        tokenName,
        virtualTokenName,
        subdomain: s.subdomain,
        customdomain: typeof s.customdomain === 'string' && s.customdomain !== '' ? s.customdomain : null,
        mode: s.modeUdp ? `${s.mode}+${s.modeUdp}` : s.mode,
        port: s.port,
        creationTime: new Date(created).toISOString(),
        lastUpdateTime: new Date(toEpochMs(s.lastUpdateTimestamp)).toISOString(),
        ageDays: Math.floor(((now.getTime() - created) / DAY_MS) * 10) / 10,
        long: now.getTime() - created > limitMs,
      };
    })
    .sort((a, b) => a.creationTime.localeCompare(b.creationTime) || a.id.localeCompare(b.id));
}

/** The rows as a fixed-width text table with a closing count line. */
export function formatActiveTable(rows: readonly ActiveTableRow[]): string {
  const header = ['id', 'name', 'domain', 'mode', 'port', 'open since (UTC)', 'age (d)', ''];
  // Every string the upstream sent is printed through the terminal gate (no escape sequence reaches it).
  const cells = rows.map((r) => [
    terminalText(r.id.slice(0, 8)),
    terminalText(r.name ?? '-'),
    terminalText(r.customdomain ?? r.subdomain),
    terminalText(r.mode),
    String(r.port),
    r.creationTime.slice(0, 19).replace('T', ' '),
    r.ageDays.toFixed(1),
    r.long ? 'LONG' : '',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => (c[i] ?? '').length)));
  const line = (c: string[]) =>
    c
      .map((v, i) => (i === 4 || i === 6 ? v.padStart(widths[i] ?? 0) : v.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  const long = rows.filter((r) => r.long).length;
  return `${[line(header), ...cells.map(line)].join('\n')}\n${rows.length} live tunnel(s); ${long} open longer than history can show\n`;
}
