import * as z from 'zod';
import { ArchiverError } from '../../foundation/index.ts';
import { SETTINGS, type SettingKey } from './configSpec.ts';

/** How a setting is named in a message: the flag when the value came from one, else its variable. */
export type SettingNames = Record<SettingKey, string>;

const ENV_NAMES = Object.fromEntries(SETTINGS.map((s) => [s.key, s.env])) as SettingNames;

/** Each setting's own schema (`SETTINGS[i].schema`), by key. */
type ConfigShape = { [S in (typeof SETTINGS)[number] as S['key']]: ReturnType<S['schema']> };

/**
 * The one schema of every setting: each entry of `SETTINGS` with its own schema, and the one rule between
 * two settings (an s3:// destination needs a state store); `names` says how each is named in messages.
 */
export function buildConfigSchema(names: SettingNames = ENV_NAMES, readsOnly = false) {
  const shape = Object.fromEntries(SETTINGS.map((s) => [s.key, s.schema(names[s.key])])) as ConfigShape;
  return z.object(shape).superRefine((c, ctx) => {
    if (!readsOnly && c.state === undefined && c.dest.trim().startsWith('s3://')) {
      ctx.addIssue({
        code: 'custom',
        path: ['state'],
        message: `${names.state} (dynamodb://TABLE) is required when ${names.dest} is s3:// (got '${c.dest}'); only a local folder can keep its state beside the data`,
      });
    }
  });
}

export const configSchema = buildConfigSchema();

export type Config = z.infer<typeof configSchema>;

export interface ConfigInput {
  /** CLI flags by setting key or by flag name (`base-url`); they win over the environment. */
  flags?: Record<string, unknown>;
  env: Record<string, string | undefined>;
  /** For a command that only reads the archive (`report`): an `s3://` destination needs no state then. */
  readsOnly?: boolean;
}

/**
 * Resolves every setting once: flags, then environment, then defaults. Throws `CONFIG_INVALID`
 * with one actionable line per problem, naming the flag or variable the bad value came from and the
 * value itself (the zod issues are the `cause`). Pure: it reads no file and opens no connection.
 */
export function loadConfig(input: ConfigInput): Config {
  const raw: Partial<Record<SettingKey, unknown>> = {};
  const names = { ...ENV_NAMES };
  for (const s of SETTINGS) {
    const flag = 'flag' in s ? (input.flags?.[s.flag] ?? input.flags?.[s.key]) : undefined;
    if (flag !== undefined && 'flag' in s) names[s.key] = `--${s.flag}`;
    const env = input.env[s.env];
    const value = flag ?? (env === undefined || env === '' ? undefined : env) ?? s.default;
    if (value !== undefined) raw[s.key] = value;
  }
  const parsed = buildConfigSchema(names, input.readsOnly).safeParse(raw);
  if (!parsed.success) {
    const message = parsed.error.issues.map((i) => i.message).join('; ');
    throw new ArchiverError('CONFIG_INVALID', `Invalid configuration: ${message}`, { cause: parsed.error });
  }
  return parsed.data;
}
