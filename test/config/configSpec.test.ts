import { describe, expect, it } from 'vitest';
import { SETTINGS } from '../../lib/archive/config/configSpec.ts';
import { configSchema, loadConfig } from '../../lib/archive/config/loadConfig.ts';
import { ArchiverError } from '../../lib/foundation/errors/archiverError.ts';

/** A value no setting accepts: not a number, a URL, a listed word, JSON or a day list. */
const NONSENSE = '{not: valid';

describe('SETTINGS', () => {
  it('is exactly what loadConfig parses: every entry, and no setting outside them', () => {
    expect(Object.keys(configSchema.shape)).toEqual(SETTINGS.map((s) => s.key));
  });

  it.each(SETTINGS.filter((s) => s.default !== undefined))(
    "gives each setting its entry's default, read by its entry's schema ($env)",
    (s) => {
      const config: Record<string, unknown> = loadConfig({ env: { ARCHIVE_DEST: 'file:///tmp/archive' } });
      const own = s.key === 'dest' ? 'file:///tmp/archive' : s.default;
      expect(config[s.key]).toEqual(s.schema(s.env).parse(own));
    },
  );

  it.each(SETTINGS.filter((s) => s.schema(s.env).safeParse(NONSENSE).success === false))(
    "refuses a value its entry's schema refuses, with that schema's message ($env)",
    (s) => {
      const own = s.schema(s.env).safeParse(NONSENSE);
      const message = own.error?.issues[0]?.message ?? '';
      let thrown: unknown;
      try {
        loadConfig({ env: { [s.env]: NONSENSE } });
      } catch (error) {
        thrown = error;
      }
      expect(ArchiverError.is(thrown, 'CONFIG_INVALID')).toBe(true);
      expect((thrown as Error).message).toContain(message);
    },
  );
});
