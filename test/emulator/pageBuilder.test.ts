import { describe, expect, it } from 'vitest';
import { buildPage, parsePaging } from '../../lib/archive/emulator/pageBuilder.ts';
import { expectPageAt } from './emulatorKit.ts';

const items = (n: number) => Array.from({ length: n }, (_, i) => i);

describe('buildPage', () => {
  it.each([
    // true rows, counted total, page, size -> totalElements, totalPages, last
    [45, 40, 0, 20, 40, 2, false],
    [45, 40, 1, 20, 40, 2, true],
    [45, 40, 2, 20, 45, 3, true],
    [45, 30, 1, 20, 40, 2, true],
    [45, 30, 3, 20, 30, 2, true],
  ] as const)(
    'with %i rows counted as %i, page %i of size %i reports %i elements in %i pages (last %s)',
    (rows, counted, page, size, total, pages, last) => {
      const p = buildPage(items(rows), page, size, counted);
      expect(p).toMatchObject({ totalElements: total, totalPages: pages, last });
      expect(p.content).toEqual(items(rows).slice(page * size, page * size + size));
    },
  );

  it.each([
    // total, page, size, numberOfElements, totalPages, first, last, empty
    [0, 0, 20, 0, 0, true, true, true],
    [1, 0, 10, 1, 1, true, true, false],
    [20, 0, 20, 20, 1, true, true, false],
    [21, 0, 20, 20, 2, true, false, false],
    [21, 1, 20, 1, 2, false, true, false],
    [45, 2, 20, 5, 3, false, true, false],
    [45, 3, 20, 0, 3, false, true, true],
    [45, 9, 20, 0, 3, false, true, true],
  ] as const)(
    'total %i page %i size %i has %i elements of %i pages (first %s, last %s, empty %s)',
    (total, page, size, n, pages, first, last, empty) => {
      const p = buildPage(items(total), page, size);
      expectPageAt(p, { total, pages, page, size, n, first, last, empty });
      expect(p.content).toEqual(items(total).slice(page * size, page * size + size));
      expect(p.pageable).toEqual({
        pageNumber: page,
        pageSize: size,
        sort: { empty: true, sorted: false, unsorted: true },
        offset: page * size,
        paged: true,
        unpaged: false,
      });
    },
  );
});

describe('parsePaging', () => {
  it.each([
    ['', { page: 0, size: 20 }],
    ['page=3&size=7', { page: 3, size: 7 }],
    ['size=5000', { page: 0, size: 2000 }],
    ['size=0', { page: 0, size: 20 }],
    ['size=-5', { page: 0, size: 20 }],
    ['page=-2', { page: 0, size: 20 }],
    ['page=abc&size=1.5', { page: 0, size: 20 }],
    ['page=99999999999', { page: 0, size: 20 }],
  ])('reads %j like Spring does', (qs, expected) => {
    expect(parsePaging(new URLSearchParams(qs), 20, 2000)).toEqual(expected);
  });
});
