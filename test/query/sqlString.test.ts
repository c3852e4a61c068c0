import { describe, expect, it } from 'vitest';
import { sqlString } from '../../lib/analytics/query/sqlString.ts';

describe('sqlString', () => {
  it('quotes a text as an SQL literal, doubling every single quote and nothing else', () => {
    expect(sqlString('plain')).toBe("'plain'");
    expect(sqlString("o'brien's")).toBe("'o''brien''s'");
    expect(sqlString('')).toBe("''");
    expect(sqlString('back\\slash "dq" %_')).toBe('\'back\\slash "dq" %_\'');
  });
});
