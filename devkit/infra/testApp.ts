import { readFileSync, rmSync } from 'node:fs';
import { App, Stack, Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { afterAll } from 'vitest';
import { buildApp } from '../../infra/buildApp.ts';
import type { TunnelArchiverStack } from '../../infra/tunnelArchiverStack.ts';

export interface SynthOptions {
  context?: Record<string, unknown>;
  /** Run esbuild for the function (slow-ish); off by default, so assertions stay fast. */
  bundle?: boolean;
  outdir?: string;
}

export interface SynthResult {
  app: App;
  stack: TunnelArchiverStack;
  template: Template;
}

/** cdk.json's context (feature flags, defaults), so tests synthesize what `cdk synth` does. */
const CDK_JSON_CONTEXT = (
  JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')) as {
    context: Record<string, unknown>;
  }
).context;

/**
 * The temporary cdk.out folders CDK made for apps given no outdir (a given outdir is the caller's): removed
 * after the test file that synthesized them (or when a bench process exits), so nothing is left behind.
 */
const madeOutdirs = new Set<string>();
const removeMadeOutdirs = (): void => {
  for (const dir of madeOutdirs) rmSync(dir, { recursive: true, force: true });
  madeOutdirs.clear();
};
// In a test file, after it; elsewhere (the bench synthesizes the app too), when the process exits.
if (process.env.VITEST) afterAll(removeMadeOutdirs);
else process.once('exit', removeMadeOutdirs);

/** An empty stack for testing one construct, in an app whose temporary cdk.out is removed after the file. */
export function testStack(): Stack {
  const app = new App();
  madeOutdirs.add(app.outdir);
  return new Stack(app, 'Test');
}

/** The real app (as `cdk synth` builds it) synthesized once; bundling skipped unless asked for. */
export function synthApp(options: SynthOptions = {}): SynthResult {
  const app = new App({
    context: {
      ...CDK_JSON_CONTEXT,
      ...options.context,
      ...(options.bundle ? {} : { 'aws:cdk:bundling-stacks': [] }),
    },
    ...(options.outdir === undefined ? {} : { outdir: options.outdir }),
  });
  // Tracked before anything can throw (a test may expect the build to fail).
  if (options.outdir === undefined) madeOutdirs.add(app.outdir);
  const stack = buildApp(app);
  return { app, stack, template: Template.fromStack(stack) };
}

/** cdk-nag AwsSolutions findings left after acknowledgements (the tree is final after synth). */
export function nagViolations(app: App): { rule: string; severity: string; paths: string[] }[] {
  const report = new AwsSolutionsChecks(app).validateScope(app);
  return report.violations.map((v) => ({
    rule: v.ruleName,
    severity: v.severity ?? 'unknown',
    paths: v.violatingResources.map(
      (r) => (r as { constructPath?: string }).constructPath ?? r.resourceLogicalId ?? '?',
    ),
  }));
}

/**
 * Acknowledgements that silence nothing: cdk-nag is run with acknowledgements ignored, and each one
 * must match a real finding at or below its construct. A stale one would hide a future finding.
 */
export function staleAcknowledgements(app: App): string[] {
  const pack = new AwsSolutionsChecks(app);
  (pack as unknown as { isAcknowledged: () => boolean }).isAcknowledged = () => false;
  const raw = pack.validateScope(app).violations.flatMap((v) =>
    v.violatingResources.map((r) => ({
      rule: v.ruleName,
      path: (r as { constructPath?: string }).constructPath ?? '',
    })),
  );
  return acknowledgements(app)
    .filter(
      (a) => !raw.some((f) => f.rule === a.id && (f.path === a.path || f.path.startsWith(`${a.path}/`))),
    )
    .map((a) => `${a.id} at ${a.path}`);
}

/** Every `Validations.of(x).acknowledge({ id, reason })` in the tree. */
export function acknowledgements(root: IConstruct): { path: string; id: string; reason: string }[] {
  const out: { path: string; id: string; reason: string }[] = [];
  for (const c of root.node.findAll()) {
    for (const entry of c.node.metadata) {
      if (entry.type !== Validations.ACKNOWLEDGED_RULES_METADATA_KEY) continue;
      for (const [id, reason] of Object.entries(entry.data as Record<string, string>)) {
        out.push({ path: c.node.path, id: id.replace(/^annotation::/i, ''), reason });
      }
    }
  }
  return out;
}

type Json = Record<string, unknown>;

/** All IAM statements of the template's policies, flattened (Action/Resource always arrays). */
export function iamStatements(
  template: Template,
  /** Only the policies attached to this role (its logical id); every policy when left out. */
  role?: string,
): { actions: string[]; resources: unknown[]; effect: string; condition?: unknown }[] {
  const list = (x: unknown): unknown[] => (Array.isArray(x) ? x : x === undefined ? [] : [x]);
  const attached = (p: unknown) =>
    role === undefined ||
    ((p as { Properties: { Roles?: { Ref?: string }[] } }).Properties.Roles ?? []).some(
      (r) => r.Ref === role,
    );
  return Object.values(template.findResources('AWS::IAM::Policy'))
    .filter(attached)
    .flatMap((p) =>
      (
        p as Json & { Properties: { PolicyDocument: { Statement: Json[] } } }
      ).Properties.PolicyDocument.Statement.map((s) => ({
        actions: list(s.Action) as string[],
        resources: list(s.Resource),
        effect: s.Effect as string,
        ...(s.Condition === undefined ? {} : { condition: s.Condition }),
      })),
    );
}

/** `{ Fn::Join: ['', [..., '/history/*']] }` → its last literal part, for matching resource suffixes. */
export function resourceSuffix(resource: unknown): string {
  if (typeof resource === 'string') return resource;
  const join = (resource as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join'];
  const last = join?.[1].at(-1);
  return typeof last === 'string' ? last : JSON.stringify(resource);
}

/** Properties of one resource, found by its construct's logical id: assertions about one function, not any. */
export function propsOf(
  { stack, template }: Pick<SynthResult, 'stack' | 'template'>,
  construct: { node: { defaultChild?: unknown } },
): Record<string, unknown> & { Environment?: { Variables?: Record<string, unknown> } } {
  const id = stack.getLogicalId(construct.node.defaultChild as never);
  const resource = template.toJSON().Resources[id];
  if (!resource) throw new Error(`no resource ${id} in the template`);
  return resource.Properties;
}
