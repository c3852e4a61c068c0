import { expect, it } from 'vitest';

/** State URLs no reader accepts (parseStateUrl and stateStoreFromUrl reject each with CONFIG_INVALID). */
export const BAD_STATE_URLS = [
  '',
  'archive-state',
  'dynamodb://',
  'dynamodb://ab',
  'dynamodb://bad name',
  'dynamodb://t/x',
  's3://bucket',
  's3://b',
];

/** A store built from a URL without an injected client builds its own, and closes it. */
export function itClosesItsOwnClient(what: string, build: () => { close?: () => Promise<void> }): void {
  it(`builds and later closes its own ${what} when none is injected`, async () => {
    const store = build();
    expect(store.close).toBeTypeOf('function');
    await store.close?.();
  });
}
