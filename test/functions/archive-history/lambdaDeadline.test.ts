import { describe, expect, it } from 'vitest';
import {
  DEADLINE_SAFETY_MARGIN_MS,
  lambdaDeadline,
} from '../../../functions/archive-history/lambdaDeadline.ts';

const now = new Date('2025-02-06T12:00:00.000Z');

describe('lambdaDeadline', () => {
  it.each([
    [900_000, 20_000, '2025-02-06T12:14:40.000Z'],
    [60_000, 20_000, '2025-02-06T12:00:40.000Z'],
    [10_000, 20_000, '2025-02-06T12:00:00.000Z'],
  ])('with %i ms left and a %i ms margin, stops by %s', (remaining, margin, expected) => {
    expect(lambdaDeadline(now, remaining, margin).toISOString()).toBe(expected);
  });

  it('keeps the default margin before the hard timeout', () => {
    expect(now.getTime() + 900_000 - lambdaDeadline(now, 900_000).getTime()).toBe(DEADLINE_SAFETY_MARGIN_MS);
  });
});
