import { describe, expect, it } from 'vitest';
import { activeTable, formatActiveTable } from '../../lib/archive/active/activeTable.ts';
import { session } from './activeKit.ts';

const NOW = new Date('2025-03-01T12:00:00.000Z');
const ago = (days: number) => new Date(NOW.getTime() - days * 86_400_000).toISOString();

describe('activeTable', () => {
  it('lists oldest first, names the tunnel by its virtual token name, flags sessions older than window − 2 days', () => {
    const rows = activeTable(
      [
        session('young-session', { creationTimestamp: ago(1) }),
        session('ancient-session', {
          creationTimestamp: ago(70),
          tokenName: 'laptop',
          virtualTokenName: null,
        }),
      ],
      NOW,
      60,
    );
    expect(rows.map((r) => [r.id, r.name, r.ageDays, r.long])).toEqual([
      ['ancient-session', 'laptop', 70, true],
      ['young-session', 'name-young-session', 1, false],
    ]);
  });

  it('never carries token values', () => {
    const [row] = activeTable([session('a', { token: 'SECRET-TOKEN', virtualToken: 'SECRET-V' })], NOW, 60);
    expect(JSON.stringify(row)).not.toMatch(/SECRET/);
  });

  it('formats a table with a count line', () => {
    const text = formatActiveTable(
      activeTable([session('abcdefgh-1', { creationTimestamp: ago(70) })], NOW, 60),
    );
    const lines = text.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^id\s+name\s+domain\s+mode\s+port\s+open since \(UTC\)\s+age \(d\)$/);
    expect(lines[1]).toMatch(
      /^abcdefgh\s+name-abcdefgh-1\s+abcdefgh-1\.a\.pinggy\.link\s+tcp\s+10003\s+2024-12-21 12:00:00\s+70\.0\s+LONG$/,
    );
    expect(lines[2]).toBe('1 live tunnel(s); 1 open longer than history can show');
  });
});
