import { describe, expect, it } from 'vitest';
import { chromiumPath } from '../../devkit/headlessChromium.ts';

describe('chromiumPath', () => {
  it('fails, naming what it tried and how to install Chromium, when there is none (the browser test never skips)', () => {
    expect(() => chromiumPath({ CHROMIUM_PATH: '/nowhere/chromium' }, ['/nowhere/else'])).toThrow(
      'No Chromium found (tried /nowhere/chromium, /nowhere/else): install it with `apt-get install -y chromium`',
    );
  });

  it('takes CHROMIUM_PATH first when it exists', () => {
    expect(chromiumPath({ CHROMIUM_PATH: process.execPath }, ['/nowhere'])).toBe(process.execPath);
  });
});
