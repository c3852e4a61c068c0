import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { formatIssues } from '../../archive/index.ts';
import { ArchiverError } from '../../foundation/index.ts';
import { type DetectionRule, ruleMetaSchema } from './ruleSchema.ts';

/** The repository's `detections/` folder (rules ship with the code; a deployment overrides settings only). */
export const DETECTIONS_DIR = fileURLToPath(new URL('../../../detections/', import.meta.url));

/** Parses one rule from its yml and SQL text; a bad yml is `CONFIG_INVALID` naming the file and field. */
export function parseRule(file: string, ymlText: string, sql: string): DetectionRule {
  let raw: unknown;
  try {
    raw = parse(ymlText);
  } catch (cause) {
    throw new ArchiverError('CONFIG_INVALID', `${file}: not valid YAML: ${(cause as Error).message}`, {
      cause,
    });
  }
  const parsed = ruleMetaSchema.safeParse(raw);
  if (!parsed.success) {
    throw new ArchiverError('CONFIG_INVALID', `${file}: ${formatIssues(parsed.error)}`, {
      cause: parsed.error,
    });
  }
  return { ...parsed.data, sql };
}

/** Every rule of `dir` (`<id>.yml` + `<id>.sql`, the id matching the file name), sorted by id. */
export function loadRulesSync(dir: string = DETECTIONS_DIR): DetectionRule[] {
  const names = readdirSync(dir)
    .filter((n) => n.endsWith('.yml'))
    .sort();
  return names.map((name) => {
    const id = name.slice(0, -'.yml'.length);
    const sqlPath = join(dir, `${id}.sql`);
    if (!existsSync(sqlPath)) throw new ArchiverError('CONFIG_INVALID', `${name} has no ${id}.sql beside it`);
    const rule = parseRule(name, readFileSync(join(dir, name), 'utf8'), readFileSync(sqlPath, 'utf8'));
    if (rule.id !== id) throw new ArchiverError('CONFIG_INVALID', `${name}: id is '${rule.id}', not '${id}'`);
    return rule;
  });
}

/** {@link loadRulesSync} for async callers (a handful of small files: reading them is not worth a pool). */
export async function loadRules(dir: string = DETECTIONS_DIR): Promise<DetectionRule[]> {
  return loadRulesSync(dir);
}
