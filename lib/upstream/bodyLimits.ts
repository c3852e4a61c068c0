/**
 * The most bytes of one 2xx response body the client reads. A page of 2,000 documented records is about
 * 0.8 MB, so the cap leaves room for pages twenty times wider; a longer body is refused
 * (`BODY_TOO_LARGE`) before it is parsed. Why this size: parsing a body costs a multiple of its bytes
 * (the text, then the parsed values, then the judged records), up to about 40 times for a body of
 * tiny JSON items (measured by `bench/bodyParseMemory.ts`, figures in docs/data-contract.md), and a walk
 * holds `2 x PAGE_CONCURRENCY x DAY_CONCURRENCY` pages at once: at the defaults, four bodies at the
 * cap fit the engine's 1024 MiB with the margin docs/data-contract.md gives.
 */
export const MAX_BODY_BYTES = 16 * 1024 * 1024;
