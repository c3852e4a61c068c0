import { type ReplaySession, replayTokenHmac } from '../../devkit/replaySchedule.ts';
import type { Finding } from '../../lib/analytics/detect/finding.ts';

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

/** The ways an incident is planted; each must be delivered exactly once. */
export const VARIANTS = ['inside', 'straddle', 'open', 'revised', 'long', 'again'] as const;
export type Variant = (typeof VARIANTS)[number];

/** One planted incident: its sessions and how its findings are recognised. */
export interface PlantedIncident {
  rule: string;
  variant: Variant;
  sessions: ReplaySession[];
  /** The finding belongs to this incident's entity. */
  matches: (f: Finding) => boolean;
  /** Its activity begins here (the `again` incident's second burst starts later). */
  at: Date;
}

interface Ctx {
  rule: string;
  variant: Variant;
  /** The incident's token (its entity for token rules). */
  token: string;
  /** A distinct number per incident, for addresses. */
  n: number;
  add: (s: Partial<ReplaySession> & { start: Date; minutes: number | null }) => void;
}

const at = (base: Date, ms: number) => new Date(base.getTime() + ms);

/** Per rule: the sessions of one burst of the incident at `t` (`open`: the last one never ends). */
const BURSTS: Record<string, (c: Ctx, t: Date) => void> = {
  concurrent_sessions: (c, t) => {
    for (let i = 0; i < 3; i++)
      c.add({ start: at(t, i * 10 * MIN), minutes: c.variant === 'long' ? 4 * 24 * 60 : 90 });
  },
  domain_not_allowlisted: (c, t) =>
    c.add({ start: t, minutes: 40, domains: [`${c.token}.evil.example`, 'x.a.pinggy.link'] }),
  first_seen_token: (c, t) => c.add({ start: t, minutes: 40 }),
  // `long`: 15 days, so when it ends its start day is outside the 14-day lookback.
  long_tunnel: (c, t) => c.add({ start: t, minutes: c.variant === 'long' ? 15 * 24 * 60 : 26 * 60 }),
  new_client_network: (c, t) => c.add({ start: t, minutes: 40, client_address: `10.${100 + c.n}.1.9` }),
  off_hours: (c, t) => c.add({ start: t, minutes: 40 }),
  shared_client_address: (c, t) => {
    for (let i = 0; i < 3; i++)
      c.add({
        start: at(t, i * HOUR),
        minutes: 40,
        token: `${c.token}-${i}`,
        client_address: `10.${c.n}.0.5`,
      });
  },
  short_session_burst: (c, t) => {
    for (const m of [0, 10, 15, 25, 40]) c.add({ start: at(t, m * MIN), minutes: 10 / 60 });
  },
  token_many_networks: (c, t) => {
    for (let i = 0; i < 4; i++)
      c.add({ start: at(t, i * 40 * MIN), minutes: 30, client_address: `172.${16 + i}.${c.n}.1` });
  },
  udp_tunnel: (c, t) => c.add({ start: t, minutes: 40, mode_udp: 'udp' }),
};

/** Around its incidents, the token's usual network every day (new_client_network needs a baseline). */
const BASELINE: Record<string, (c: Ctx, from: Date) => void> = {
  new_client_network: (c, from) => {
    for (let d = 0; d < 14; d++)
      c.add({ start: at(from, d * DAY + 9 * HOUR), minutes: 40, client_address: `10.${c.n}.7.7` });
  },
};

/** Rules whose entity is not the token: the finding's entity for the incident. */
const ENTITY: Record<string, (c: Ctx) => string> = {
  domain_not_allowlisted: (c) => `${c.token}.evil.example`,
  shared_client_address: (c) => `10.${c.n}.0.5`,
};

/**
 * Where each variant's bursts go, from `day0` (a Monday at 00:00 UTC), for a rule with `gapMs`:
 * inside a window (day 5, 10:00 or 02:00 off hours), across midnight or the hour, still open at the
 * end, revised (each session archived again twice after it closed), long (repeated within the gap for
 * longer than the lookback; `long_tunnel`: open longer than its lookback, from before the replay), and
 * again after the quiet gap.
 */
function bursts(
  rule: string,
  variant: Variant,
  day0: Date,
  gapMs: number,
): { starts: Date[]; open: boolean } {
  const night = rule === 'off_hours';
  const base = at(day0, 5 * DAY + (night ? 2 : 10) * HOUR);
  switch (variant) {
    case 'inside':
      return { starts: [base], open: false };
    case 'straddle':
      // Across midnight (23:40 then 00:20), or across the hour for the 60-minute window.
      return rule === 'short_session_burst'
        ? { starts: [at(day0, 6 * DAY + 10 * HOUR + 40 * MIN)], open: false }
        : { starts: [at(day0, 6 * DAY + 23 * HOUR + 20 * MIN)], open: false };
    case 'open':
      return { starts: [at(day0, 12 * DAY + (night ? 3 : 10) * HOUR)], open: true };
    case 'revised':
      return { starts: [at(day0, 9 * DAY + (night ? 2 : 10) * HOUR)], open: false };
    case 'long': {
      // Repeated within the quiet gap over four days (a weekend for off_hours: all of it off hours).
      const every = Math.min(gapMs / 2, 6 * HOUR);
      const from = night ? at(day0, 4 * DAY + 20 * HOUR) : at(day0, 7 * DAY + 8 * HOUR);
      const span = night ? 58 * HOUR : 4 * DAY;
      if (rule === 'long_tunnel') return { starts: [at(day0, -3 * DAY + 8 * HOUR)], open: false };
      if (rule === 'concurrent_sessions') return { starts: [from], open: false };
      const starts: Date[] = [];
      for (let ms = 0; ms < span; ms += every) starts.push(at(from, ms));
      return { starts, open: false };
    }
    case 'again':
      return { starts: [base, at(base, gapMs + DAY)], open: false };
  }
}

/** Every rule's incidents (the `again` variant of `first_seen_token` excepted: a token is new once). */
export function plantedIncidents(
  rules: readonly { id: string; quiet_gap: string }[],
  day0: Date,
  gapMs: (id: string) => number,
): PlantedIncident[] {
  const out: PlantedIncident[] = [];
  let n = 0;
  for (const rule of rules) {
    for (const variant of VARIANTS) {
      if (rule.id === 'first_seen_token' && variant === 'again') continue;
      n++;
      const token = `${rule.id}-${variant}`;
      const sessions: ReplaySession[] = [];
      const ctx: Ctx = {
        rule: rule.id,
        variant,
        token,
        n,
        add: (s) =>
          sessions.push({
            session_id: `${token}-${sessions.length}`,
            token: s.token ?? token,
            client_address: s.client_address ?? `10.${n}.3.3`,
            start: s.start,
            end: s.minutes === null ? null : at(s.start, s.minutes * MIN),
            ...(s.mode_udp ? { mode_udp: s.mode_udp } : {}),
            ...(s.domains ? { domains: s.domains } : {}),
            ...(variant === 'revised' ? { revisions: 2 } : {}),
          }),
      };
      BASELINE[rule.id]?.(ctx, day0);
      const plan = bursts(rule.id, variant, day0, gapMs(rule.id));
      for (const start of plan.starts) BURSTS[rule.id]?.(ctx, start);
      const last = sessions.at(-1);
      if (plan.open && last) {
        // Still open at the end: its last session never ends (a short-session burst gets one more, open).
        if (rule.id === 'short_session_burst')
          sessions.push({ ...last, session_id: `${token}-open`, start: at(last.start, 5 * MIN), end: null });
        else last.end = null;
      }
      const entity = ENTITY[rule.id]?.(ctx);
      out.push({
        rule: rule.id,
        variant,
        sessions,
        at: plan.starts.at(-1) ?? day0,
        matches: (f) =>
          f.rule_id === rule.id && (entity ? f.entity === entity : f.token_hmac === replayTokenHmac(token)),
      });
    }
  }
  return out;
}
