import { createRequire, register } from 'node:module';
import { pathToFileURL } from 'node:url';
import { ArchiverError } from '../../foundation/index.ts';

/** Where Trino's grammar rejects `sql`: one `line:column message` per syntax error; empty = it parses. */
export type TrinoGrammar = (sql: string) => string[];

interface TrinoModule {
  TrinoSQL: new () => {
    validate(sql: string): { startLine: number; startColumn: number; message: string }[];
  };
}

/** dt-sql-parser's Trino entry (the ANTLR grammar Athena engine 3 parses, without the other dialects). */
const TRINO_ENTRY = 'dt-sql-parser/dist/parser/trino/index.js';

/**
 * A resolve hook for imports inside dt-sql-parser's `dist/` only. Its ESM build imports its own files
 * without extensions (`'./trinoErrorListener'`, `'../common'`) and its package.json has no `"type"`;
 * Node's ESM resolver refuses both (bundlers and vitest accept them). The hook tries such a specifier
 * with `.js`, then `/index.js`, then as written, and loads the package's files as ES modules (Node 20
 * before 20.19 does not detect their syntax).
 */
const HOOKS = `
const DIST = '/node_modules/dt-sql-parser/dist/';
export async function resolve(specifier, context, next) {
  if (!(context.parentURL ?? '').includes(DIST) || !specifier.startsWith('.')) {
    const r = await next(specifier, context);
    return r.url.includes(DIST) ? { ...r, format: 'module' } : r;
  }
  let failure;
  for (const suffix of ['.js', '/index.js', '']) {
    try {
      const r = await next(specifier + suffix, context);
      return { ...r, format: 'module', shortCircuit: true };
    } catch (error) {
      failure ??= error;
    }
  }
  throw failure;
}`;

let loading: Promise<TrinoGrammar> | undefined;

/**
 * Trino's grammar as dt-sql-parser compiles it, loaded once, under plain Node (the CLI) as under
 * vitest. Grammar only: it does not resolve tables, columns or function names. Without dt-sql-parser
 * installed it is `CONFIG_INVALID`, naming the package.
 */
export function loadTrinoGrammar(): Promise<TrinoGrammar> {
  loading ??= (async () => {
    let entry: string;
    try {
      entry = createRequire(import.meta.url).resolve(TRINO_ENTRY);
    } catch (cause) {
      throw new ArchiverError(
        'CONFIG_INVALID',
        'the Trino grammar check needs the dt-sql-parser package: run `npm install` in the checkout',
        { cause },
      );
    }
    register(`data:text/javascript,${encodeURIComponent(HOOKS)}`);
    const { TrinoSQL } = (await import(pathToFileURL(entry).href)) as TrinoModule;
    const parser = new TrinoSQL();
    return (sql: string) => parser.validate(sql).map((e) => `${e.startLine}:${e.startColumn} ${e.message}`);
  })();
  return loading;
}
