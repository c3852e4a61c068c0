import { mkdir, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { loadRules } from '../lib/analytics/detect/loadRules.ts';
import { rulePage } from '../lib/analytics/detect/ruleDocs.ts';

/** Writes docs/detections/<id>.md for every rule (`npm run detections:docs`). */
const dir = fileURLToPath(new URL('../docs/detections/', import.meta.url));
await mkdir(dir, { recursive: true });
for (const rule of await loadRules()) await writeFile(`${dir}${rule.id}.md`, rulePage(rule));
