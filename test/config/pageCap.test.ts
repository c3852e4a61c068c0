import type { CfnElement } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import type { CfnTemplate } from '../../devkit/infra/templateArns.ts';
import { templateVariables } from '../../devkit/infra/templateEnv.ts';
import { synthApp } from '../../devkit/infra/testApp.ts';
import { loadConfig } from '../../lib/archive/config/loadConfig.ts';
import { MAX_DAY_SESSIONS, pageCap } from '../../lib/archive/config/walkLimits.ts';
import { FINISH_MAX_IDS } from '../../lib/archive/fanout/finishMaxIds.ts';

describe('pageCap', () => {
  it.each([
    [undefined, 100, Math.ceil(MAX_DAY_SESSIONS / 100) + 1],
    [undefined, 2000, Math.ceil(MAX_DAY_SESSIONS / 2000) + 1],
    [undefined, 1, MAX_DAY_SESSIONS + 1],
    [50, 100, 50],
    [50, 2000, 50],
  ])('MAX_PAGES_PER_DAY %s at an echoed size of %i: %i pages', (set, size, cap) => {
    expect(pageCap(set, size)).toBe(cap);
  });

  it('is the largest day the archive proves, whatever the page size', () => {
    expect(MAX_DAY_SESSIONS).toBe(FINISH_MAX_IDS);
    for (const size of [1, 7, 20, 100, 333, 2000, 10_000])
      expect((pageCap(undefined, size) - 1) * size).toBeGreaterThanOrEqual(MAX_DAY_SESSIONS);
  });
});

describe('the page cap the stack ships', () => {
  const { stack, template: synthesized } = synthApp();
  const template = synthesized.toJSON() as CfnTemplate;
  const idOf = (fn: (typeof engines)[number]) => stack.getLogicalId(fn.node.defaultChild as CfnElement);
  const engines = [stack.archiver.fn, stack.fanout.fn];

  it.each([
    ['a 2M-session day at 100 rows a page', 2_000_000, 100],
    ['a 26M-session day at 2000 rows a page', 26_000_000, 2000],
    ['a 26M-session day at 100 rows a page', 26_000_000, 100],
  ])('reaches %s with the engine functions’ template environment', (_name, sessions, size) => {
    for (const fn of engines) {
      const config = loadConfig({ env: templateVariables(template, idOf(fn)) });
      expect(pageCap(config.maxPagesPerDay, size)).toBeGreaterThan(Math.ceil(sessions / size));
    }
  });
});
