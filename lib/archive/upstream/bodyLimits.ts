/**
 * The most bytes of one 2xx response body the client reads; a longer body is refused (`BODY_TOO_LARGE`)
 * before it is parsed, and a page holding more items than the size asked for is refused once those are
 * counted, before it is parsed whole (`parseJsonBytes`). A page of 2,000 documented records is about 0.8 MB:
 * the cap leaves room for pages ten times wider.
 *
 * Why 8 MiB: parsing a body costs a multiple of its bytes, up to about 28 times for records full of empty
 * objects (220–228 MiB above the process's baseline for one 8 MiB body, 403 MiB for two in flight at once;
 * four pages of valid records at the record limits held at once, 228–238 MiB), measured by
 * `bench/bodyParseMemory.ts` (figures in docs/data-contract.md, "Limits"). At the defaults (PAGE_CONCURRENCY
 * 2, DAY_CONCURRENCY 1) the worst of these leaves the 1769 MiB function about 1,300 MiB for the walk itself;
 * at 16 MiB, one hostile body alone took 550 MiB.
 */
export const MAX_BODY_BYTES = 8 * 1024 * 1024;
