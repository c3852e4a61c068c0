import { describe, expect, it } from 'vitest';
import { liveJoinToken, liveMatchesHistory } from '../../lib/archive/records/liveJoinToken.ts';
import {
  DOCUMENTED_LIVE,
  DOCUMENTED_TOKEN,
  JOIN_SHAPES,
  liveSessionIn,
} from '../support/documentedLiveSession.ts';

describe('liveJoinToken', () => {
  it.each(JOIN_SHAPES)('names the documented session by its token in the %s shape', (shape) => {
    const s = liveSessionIn(shape);
    expect(liveJoinToken(s.token as string | null, s.virtualToken, s.port)).toBe(DOCUMENTED_TOKEN);
    // What was sent is kept: the session's fields are not touched.
    expect(s.virtualToken).toBe(DOCUMENTED_LIVE.virtualToken);
  });

  it.each([
    ['the token when it is sent', 'tok', 'other-443', 443, 'tok'],
    ['the virtual token less its own port', null, 'abc-10003', 10003, 'abc'],
    ['a token holding dashes, less the port', null, 'a-b-c-8080', 8080, 'a-b-c'],
    ['the whole virtual token when the suffix is another port', null, 'abc-10003', 10004, 'abc-10003'],
    ['the whole virtual token when it has no suffix', null, 'abc', 443, 'abc'],
    ['the whole virtual token when it is only the suffix', null, '-443', 443, '-443'],
    ['the virtual token when the token is empty', '', 'abc-443', 443, 'abc'],
    ['nothing without either', null, null, 443, null],
    ['nothing for an empty virtual token', null, '', 443, null],
  ])('takes %s', (_, token, virtualToken, port, want) => {
    expect(liveJoinToken(token, virtualToken, port)).toBe(want);
  });
});

describe('liveMatchesHistory', () => {
  it.each([
    ['history names the join token', { token: 't', virtual_token: null }, true],
    ['history names only the join token as its virtual token', { token: null, virtual_token: 't' }, true],
    ['both name the same virtual token', { token: 'x', virtual_token: 't-443' }, true],
    ['history names no token at all', { token: null, virtual_token: null }, true],
    ['history names another token', { token: 'u', virtual_token: null }, false],
    [
      'history names the unstripped virtual token as its token',
      { token: 't-443', virtual_token: null },
      false,
    ],
  ])('%s: %s', (_, history, want) => {
    expect(liveMatchesHistory({ join_token: 't', virtual_token: 't-443' }, history)).toBe(want);
  });
});
