import { ArchiverError } from '../../foundation/index.ts';
import type { WireActiveSession } from './dataset.ts';

/**
 * How the emulator's active list names a session's token. `documented`: as the service's documented
 * example (`token: null`, the token only inside `virtualToken: "<token>-<port>"`). `token-filled`: `token`
 * set for every session opened without a virtual token, the variant the seed's table leaves open.
 */
export const LIVE_SHAPES = ['documented', 'token-filled'] as const;
export type LiveShape = (typeof LIVE_SHAPES)[number];

/** The documented shape: what the service is known to send. */
export const DEFAULT_LIVE_SHAPE: LiveShape = 'documented';

/** `shape` checked, or `CONFIG_INVALID` naming the shapes there are. */
export function resolveLiveShape(shape: string | undefined): LiveShape {
  const s = shape ?? DEFAULT_LIVE_SHAPE;
  if (!(LIVE_SHAPES as readonly string[]).includes(s))
    throw new ArchiverError(
      'CONFIG_INVALID',
      `emulator live shape must be ${LIVE_SHAPES.join(' or ')}, got '${s}'`,
    );
  return s as LiveShape;
}

/**
 * One active-list entry in `shape`. The emulated sessions are drawn token-filled (their `virtualToken`
 * is `<token>-<port>` either way); the documented shape sends `token` as null.
 */
export function inLiveShape(session: WireActiveSession, shape: LiveShape): WireActiveSession {
  return shape === 'documented' ? { ...session, token: null } : session;
}
