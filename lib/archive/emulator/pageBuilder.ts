/** Spring Data's sort descriptor for an unsorted query. */
export type SpringSort = { empty: boolean; sorted: boolean; unsorted: boolean };

/** Spring Data's `Page` as Jackson serializes it, keys in the documented fixture's order. */
export type SpringPage<T> = {
  totalElements: number;
  totalPages: number;
  size: number;
  content: T[];
  number: number;
  sort: SpringSort;
  pageable: {
    pageNumber: number;
    pageSize: number;
    sort: SpringSort;
    offset: number;
    paged: boolean;
    unpaged: boolean;
  };
  numberOfElements: number;
  first: boolean;
  last: boolean;
  empty: boolean;
};

const UNSORTED: SpringSort = { empty: true, sorted: false, unsorted: true };

/**
 * Slices page `page` of `size` out of `all` (already in response order) and computes the envelope the
 * way Spring's `PageImpl` does: a page past the end is empty but keeps the true totals.
 *
 * `countedTotal` is what the separate COUNT query said (default: the true count). When it is stale,
 * `PageImpl` still corrects it on a page whose content reaches past it (total = offset + content), so
 * only a client that asks for that page learns the real number.
 */
export function buildPage<T>(
  all: readonly T[],
  page: number,
  size: number,
  countedTotal: number = all.length,
): SpringPage<T> {
  const offset = page * size;
  const content = all.slice(offset, offset + size);
  const totalElements =
    content.length > 0 && offset + size > countedTotal ? offset + content.length : countedTotal;
  const totalPages = Math.ceil(totalElements / size);
  return {
    totalElements,
    totalPages,
    size,
    content,
    number: page,
    sort: { ...UNSORTED },
    pageable: {
      pageNumber: page,
      pageSize: size,
      sort: { ...UNSORTED },
      offset,
      paged: true,
      unpaged: false,
    },
    numberOfElements: content.length,
    first: page === 0,
    last: page + 1 >= totalPages,
    empty: content.length === 0,
  };
}

export interface PagingParams {
  page: number;
  size: number;
}

/**
 * Reads `page` and `size` like Spring's PageableHandlerMethodArgumentResolver: missing or unparsable
 * values fall back to the defaults, a negative page becomes 0, a size above the cap is silently capped.
 */
export function parsePaging(query: URLSearchParams, defaultSize: number, maxSize: number): PagingParams {
  const page = parseNonNegativeInt(query.get('page'));
  const size = parseNonNegativeInt(query.get('size'));
  return {
    page: page ?? 0,
    size: size === undefined || size < 1 ? defaultSize : Math.min(size, maxSize),
  };
}

/** Spring binds to a Java `int`; anything larger is unparsable and falls back to the default. */
const INT_MAX = 2_147_483_647;

function parseNonNegativeInt(raw: string | null): number | undefined {
  if (raw === null || !/^-?\d+$/.test(raw.trim())) return undefined;
  const n = Number.parseInt(raw, 10);
  if (!Number.isSafeInteger(n) || n > INT_MAX) return undefined;
  return Math.max(n, 0);
}
