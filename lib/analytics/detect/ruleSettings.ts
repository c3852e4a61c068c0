import { readFile } from 'node:fs/promises';
import { parse } from 'yaml';
import * as z from 'zod';
import { formatIssues } from '../../archive/index.ts';
import { ArchiverError } from '../../foundation/index.ts';
import { renderRuleSql } from './renderRuleSql.ts';
import { type DetectionRule, type SettingValue, settingValue } from './ruleSchema.ts';

/**
 * A deployment's overrides (a settings file locally, the `detections` CDK context in AWS): settings
 * for every rule that has them (e.g. `time_zone`, `holidays`, `exempt_networks`), and per rule
 * (`threshold`, an allowlist, exemptions, `enabled`).
 * The SQL never changes; it names settings as `{{name}}`.
 */
export const detectionSettingsSchema = z.strictObject({
  settings: z.record(z.string(), settingValue).default({}),
  rules: z.record(z.string(), z.record(z.string(), z.union([settingValue, z.boolean()]))).default({}),
});
export type DetectionSettings = z.infer<typeof detectionSettingsSchema>;

/**
 * Settings every rule has: client networks (CIDR) and token digests (`token_hmac`) it leaves out, such
 * as an office NAT or a CI bot's token. Set for all rules under `settings`, or per rule.
 */
export const EXEMPTIONS: Readonly<Record<'exempt_networks' | 'exempt_tokens', SettingValue>> = {
  exempt_networks: [],
  exempt_tokens: [],
};

export const NO_OVERRIDES: DetectionSettings = { settings: {}, rules: {} };

/** Validates overrides from any source (parsed YAML/JSON); unknown rules or settings are refused. */
export function parseDetectionSettings(
  raw: unknown,
  rules: readonly DetectionRule[],
  where: string,
): DetectionSettings {
  const parsed = detectionSettingsSchema.safeParse(raw ?? {});
  if (!parsed.success) {
    throw new ArchiverError('CONFIG_INVALID', `${where}: ${formatIssues(parsed.error)}`, {
      cause: parsed.error,
    });
  }
  for (const [id, values] of Object.entries(parsed.data.rules)) {
    const rule = rules.find((r) => r.id === id);
    if (!rule) throw new ArchiverError('CONFIG_INVALID', `${where}: no rule '${id}'`);
    for (const name of Object.keys(values)) {
      if (name !== 'enabled' && name !== 'threshold' && !(name in EXEMPTIONS) && !(name in rule.settings))
        throw new ArchiverError('CONFIG_INVALID', `${where}: rule '${id}' has no setting '${name}'`);
    }
  }
  // Every value renders now (a bad network, day or time zone fails here, naming the file, not in a run).
  for (const rule of rules) {
    if (!ruleEnabled(rule, parsed.data)) continue;
    let settings: Record<string, SettingValue>;
    try {
      settings = effectiveSettings(rule, parsed.data);
    } catch (cause) {
      throw new ArchiverError('CONFIG_INVALID', `${where}: ${(cause as Error).message}`, { cause });
    }
    try {
      renderRuleSql(rule.sql, settings, {
        since: '2026-01-01',
        until: '2026-01-01',
        now: new Date(0),
      });
    } catch (cause) {
      throw new ArchiverError('CONFIG_INVALID', `${where}: rule '${rule.id}': ${(cause as Error).message}`, {
        cause,
      });
    }
  }
  return parsed.data;
}

/** Reads a settings file (YAML or JSON). */
export async function readDetectionSettings(
  path: string,
  rules: readonly DetectionRule[],
): Promise<DetectionSettings> {
  const text = await readFile(path, 'utf8').catch((cause: unknown) => {
    throw new ArchiverError(
      'CONFIG_INVALID',
      `cannot read the detection settings ${path}: ${(cause as Error).message}`,
      { cause },
    );
  });
  return parseDetectionSettings(parse(text), rules, path);
}

/**
 * A rule's effective settings: its yml values, then the deployment's shared settings, then its own. An
 * override takes the type of the value it replaces (the rule's default): see {@link settingTypeProblem};
 * one of another type is CONFIG_INVALID naming the rule and the setting, so a setting can never turn a
 * number into SQL text (`threshold: "0--"` would comment out the rest of its line).
 */
export function effectiveSettings(
  rule: DetectionRule,
  overrides: DetectionSettings,
): Record<string, SettingValue> {
  const defaults: Record<string, SettingValue> = {
    threshold: rule.threshold,
    ...EXEMPTIONS,
    ...rule.settings,
  };
  const out = { ...defaults };
  const take = (k: string, v: SettingValue) => {
    const problem = settingTypeProblem(defaults[k] as SettingValue, v);
    if (problem)
      throw new ArchiverError(
        'CONFIG_INVALID',
        `rule '${rule.id}' setting '${k}' ${problem}, got ${JSON.stringify(v)}`,
        { details: { rule: rule.id, setting: k } },
      );
    out[k] = v;
  };
  for (const [k, v] of Object.entries(overrides.settings)) if (k in defaults) take(k, v);
  for (const [k, v] of Object.entries(overrides.rules[rule.id] ?? {})) if (typeof v !== 'boolean') take(k, v);
  return out;
}

/**
 * Why `value` cannot replace a setting whose default is `byDefault`, or undefined: a number default takes
 * only a finite number (not a numeric text: it is written into the SQL as it is); a text default takes
 * only a text (checked and quoted by the rendering: `renderRuleSql`); a list default takes a list of texts
 * or numbers, or one text or number (a list of one).
 */
export function settingTypeProblem(byDefault: SettingValue, value: SettingValue): string | undefined {
  if (typeof byDefault === 'number')
    return typeof value === 'number' && Number.isFinite(value)
      ? undefined
      : 'must be a finite number, as its default is';
  if (typeof byDefault === 'string')
    return typeof value === 'string' ? undefined : 'must be a text, as its default is';
  const items = Array.isArray(value) ? value : [value];
  return items.every((i) => typeof i === 'string' || (typeof i === 'number' && Number.isFinite(i)))
    ? undefined
    : 'must be a list of texts or numbers, as its default is';
}

/** Whether the deployment turned a rule off (`rules.<id>.enabled: false`). */
export function ruleEnabled(rule: DetectionRule, overrides: DetectionSettings): boolean {
  return overrides.rules[rule.id]?.enabled !== false;
}
