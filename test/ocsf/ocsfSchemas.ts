import { readFileSync } from 'node:fs';
import Ajv2020Module, { type ValidateFunction } from 'ajv/dist/2020.js';

export type SchemaName =
  | '1.8.0-tunnel_activity'
  | '1.8.0-detection_finding'
  | '1.1.0-network_activity'
  | '1.1.0-detection_finding';

// ajv is CommonJS: under NodeNext its default import is the module, whose `default` is the class.
const Ajv2020 = (Ajv2020Module as unknown as { default: typeof Ajv2020Module.default }).default;
const ajv = new Ajv2020({ strict: false, allErrors: true });
const compiled = new Map<SchemaName, ValidateFunction>();

/** The OCSF JSON Schema of a class and release (test/fixtures/ocsf, copied from ../shared/ocsf), compiled once. */
export function ocsfValidator(name: SchemaName): ValidateFunction {
  let v = compiled.get(name);
  if (v === undefined) {
    const url = new URL(`../fixtures/ocsf/ocsf-${name}.schema.json`, import.meta.url);
    v = ajv.compile(JSON.parse(readFileSync(url, 'utf8')) as object);
    compiled.set(name, v);
  }
  return v;
}

/** The schema's errors for `event`, as text ('' = valid). */
export function ocsfErrors(name: SchemaName, event: unknown): string {
  const v = ocsfValidator(name);
  return v(event) ? '' : ajv.errorsText(v.errors, { separator: '\n' });
}
