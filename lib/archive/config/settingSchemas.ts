import * as z from 'zod';
import { ArchiverError, cleartextProblem } from '../../foundation/index.ts';

/**
 * The kinds of value a setting takes, each a zod schema whose messages name the setting as the user gave
 * it (`name`: the flag when the value came from one, else its variable) and echo the value. Each entry of
 * `SETTINGS` (`configSpec.ts`) picks one; `loadConfig` parses with exactly those.
 */

const shown = (v: unknown): string => `'${String(v)}'`;

/** A whole number in [min, max]; the message names the setting and echoes the value as given. */
export const intIn = (name: string, min: number, max: number) =>
  z.unknown().transform((raw, ctx) => {
    const text = typeof raw === 'number' ? String(raw) : typeof raw === 'string' ? raw.trim() : '';
    const n = /^[+-]?\d+$/.test(text) ? Number(text) : Number.NaN;
    let message: string | undefined;
    if (!Number.isSafeInteger(n))
      message = `${name} must be an integer from ${min} to ${max}, got ${shown(raw)}`;
    else if (n < min) message = `${name} must be at least ${min}, got ${shown(raw)}`;
    else if (n > max) message = `${name} must be at most ${max}, got ${shown(raw)}`;
    if (message === undefined) return n;
    ctx.addIssue({ code: 'custom', message });
    return z.NEVER;
  });

/** One of a fixed list of words. */
export const oneOf = <const T extends readonly [string, ...string[]]>(name: string, values: T) =>
  z.enum(values, {
    error: (i) =>
      `${name} must be ${values.slice(0, -1).join(', ')} or ${values.at(-1)}, got ${shown(i.input)}`,
  });

/** A non-empty text, with the message `<name> is empty` when `named`. */
export const text = (name?: string) => z.string().min(1, name === undefined ? undefined : `${name} is empty`);

export const httpUrl = (name: string) =>
  z.string().refine((s) => /^https?:\/\/[^\s/]+/.test(s) && URL.canParse(s), {
    error: (i) => `${name} must be an http(s) URL, got ${shown(i.input)}`,
  });

/** An http(s) URL that a secret is sent to: `http://` only for a loopback host (`cleartextProblem`). */
export const secretBearingUrl = (name: string) =>
  httpUrl(name).superRefine((s, ctx) => {
    const problem = cleartextProblem(s);
    if (problem) ctx.addIssue({ code: 'custom', message: `${name} ${problem}, got ${shown(s)}` });
  });

/** A text matching `pattern`, else `<name> must be <what>`. */
export const matching = (name: string, pattern: RegExp, what: string) =>
  z.string().regex(pattern, { message: `${name} must be ${what}` });

/** Comma-separated whole days >= 1, read as a sorted list without repeats. */
export const dayList = (name: string) =>
  z.string().transform((s, ctx) => {
    const ages = s
      .split(',')
      .map((p) => p.trim())
      .filter(Boolean)
      .map(Number);
    if (ages.some((a) => !Number.isInteger(a) || a < 1)) {
      ctx.addIssue({
        code: 'custom',
        message: `${name} must be comma-separated whole days >= 1, got '${s}'`,
      });
      return z.NEVER;
    }
    return [...new Set(ages)].sort((a, b) => a - b);
  });

function parsesAs(text: string, ok: (v: unknown) => boolean): boolean {
  try {
    return ok(JSON.parse(text));
  } catch {
    return false;
  }
}

/** JSON text of an object (kept as text: its reader checks the object). */
export const jsonObjectText = (name: string) =>
  z.string().refine((s) => parsesAs(s, (v) => typeof v === 'object' && v !== null && !Array.isArray(v)), {
    error: `${name} must be a JSON object`,
  });

/** JSON text of an array (kept as text: its reader checks the items). */
export const jsonArrayText = (name: string) =>
  z.string().refine((s) => parsesAs(s, Array.isArray), { error: `${name} must be a JSON array` });

/** Rewrites a URL parser's CONFIG_INVALID message so it names the flag when the value came from one. */
export const viaParser = (name: string, envName: string, parse: (s: string) => unknown) =>
  z.string().superRefine((s, ctx) => {
    try {
      parse(s);
    } catch (error) {
      if (!ArchiverError.is(error, 'CONFIG_INVALID')) throw error;
      ctx.addIssue({ code: 'custom', message: error.message.replace(envName, name) });
    }
  });
