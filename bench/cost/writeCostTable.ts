/**
 * Rewrites the cost table of docs/operations.md ("A month, modelled from the first week") from the committed
 * first week and the bench's figures: `npm run cost:docs` after the week or the bench is measured again.
 * test/bench/monthlyCost.test.ts holds the page to the model.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { costFigures, readFirstWeekUsage } from './costFigures.ts';
import { COST_SECTION, renderCostTable } from './monthlyCost.ts';

const page = fileURLToPath(new URL('../../docs/operations.md', import.meta.url));
const text = readFileSync(page, 'utf8');
const start = text.search(new RegExp(`^#+ ${COST_SECTION}$`, 'm'));
if (start < 0) throw new Error(`docs/operations.md has no section '${COST_SECTION}'`);
const tableStart = text.indexOf('\n|', start) + 1;
const tableEnd = text.indexOf('\n\n', tableStart);
if (tableStart === 0 || tableEnd < 0) throw new Error(`no table under '${COST_SECTION}'`);
writeFileSync(
  page,
  `${text.slice(0, tableStart)}${renderCostTable(readFirstWeekUsage(), costFigures())}${text.slice(tableEnd)}`,
);
console.log(`rewrote the cost table of ${page}; run npx biome check --write docs/operations.md`);
