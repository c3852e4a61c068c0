import { RECORD_LIMITS } from '../lib/archive/records/recordLimits.ts';

/**
 * History page bodies of an exact size, generated chunk by chunk (never held whole): the shapes whose
 * parse costs the most memory per byte, for `bodyParseMemory.ts` and the body-cap tests. Every shape but
 * `tiny` holds 2,000 items (the page size asked for), each padded to fill the body:
 * - `wide`: records with one long extra string (few values, long strings);
 * - `numbers`: records with an extra array of one-digit numbers (two bytes a value);
 * - `objects`: records with an extra array of empty objects (three bytes a value: the most memory a byte);
 * - `limit`: records with as many empty objects as the record limit lets through, padded with a string
 *   (the most a page of valid records keeps in memory once judged);
 * - `tiny`: as many empty objects `{}` as fit (far more items than asked for: refused once the items past the size are counted).
 */
export type BodyShape = 'wide' | 'numbers' | 'objects' | 'limit' | 'tiny';

export const BODY_SHAPES: readonly BodyShape[] = ['wide', 'numbers', 'objects', 'limit', 'tiny'];

/** Empty objects a `limit` record holds: the record limit's values less the record's own 13 and the array. */
const LIMIT_OBJECTS = RECORD_LIMITS.maxValues - 15;

/** Items of every shape but `tiny`: the page size asked for. */
export const SHAPE_ITEMS = 2000;

const HEAD =
  '{"totalElements":2000,"totalPages":1,"size":2000,"number":0,"sort":{"empty":true,"sorted":false,"unsorted":true},' +
  '"pageable":{"pageNumber":0,"pageSize":2000,"sort":{"empty":true,"sorted":false,"unsorted":true},"offset":0,"paged":true,"unpaged":false},' +
  '"numberOfElements":2000,"first":true,"last":true,"empty":false,"content":[';
const TAIL = ']}';

function record(i: number, extra = ''): string {
  const s = String(i).padStart(6, '0');
  return (
    `{"start_time":"2026-01-01T10:00:00.000+00:00","end_time":"2026-01-01T11:00:00.000+00:00",` +
    `"user_email":"user${s}@example.com","token_value":"TOKEN${s}","virtual_token_value":null,` +
    `"domains":["t${s}.a.pinggy.link"],"mode":"http","mode_udp":"","client_ip":"[5.7.152.215]:4${s.slice(2)}","port":null${extra}}`
  );
}

/** One item of about `room` bytes. */
function item(shape: BodyShape, i: number, room: number): string {
  const base = record(i).length + 16;
  const fill = Math.max(1, room - base);
  switch (shape) {
    case 'wide':
      return record(i, `,"note":"${'x'.repeat(fill)}"`);
    case 'numbers':
      return record(i, `,"samples":[${'0,'.repeat(Math.max(0, Math.floor(fill / 2) - 1))}0]`);
    case 'objects':
      return record(i, `,"samples":[${'{},'.repeat(Math.max(0, Math.floor(fill / 3) - 1))}{}]`);
    case 'limit': {
      const objects = `[${'{},'.repeat(LIMIT_OBJECTS - 1)}{}]`;
      return record(
        i,
        `,"samples":${objects},"pad":"${'x'.repeat(Math.max(0, fill - objects.length - 20))}"`,
      );
    }
    case 'tiny':
      return '{}';
  }
}

/**
 * The body of `bytes` bytes (at least the envelope's): the shape's items, then spaces (JSON whitespace,
 * which the parser keeps nothing of) up to the exact size. Yields chunks of about 64 KiB.
 */
export function* bodyChunks(shape: BodyShape, bytes: number): Generator<Buffer> {
  let written = 0;
  let chunk = HEAD;
  const room = bytes - TAIL.length;
  const itemRoom = Math.floor((room - HEAD.length) / SHAPE_ITEMS) - 1;
  for (let i = 0; shape === 'tiny' || i < SHAPE_ITEMS; i++) {
    const next = (i === 0 ? '' : ',') + item(shape, i, itemRoom);
    if (written + chunk.length + next.length > room) break;
    chunk += next;
    if (chunk.length >= 65_536) {
      written += chunk.length;
      yield Buffer.from(chunk);
      chunk = '';
    }
  }
  chunk += ' '.repeat(Math.max(0, room - written - chunk.length)) + TAIL;
  for (let o = 0; o < chunk.length; o += 65_536) yield Buffer.from(chunk.slice(o, o + 65_536));
}
