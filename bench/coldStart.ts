import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import { synthApp } from '../devkit/infra/testApp.ts';
import { lambdaCommand } from '../devkit/lambdaCommand.ts';
import { LAMBDA_NODE } from '../devkit/lambdaNode.ts';

export interface ColdStartResult {
  node: string;
  bundleBytes: number;
  /** Module import plus module-scope handler init (clients, config, logger), per fresh process. */
  samplesMs: number[];
  medianMs: number;
  /** When the bench run that measured it started (ISO). */
  measuredAt?: string;
}

/**
 * Lambda cold start as far as the code decides it: the CDK bundle (exactly as `cdk synth` builds it) is
 * imported by a fresh process of the Lambda's Node with the function's environment, `runs` times; the
 * time from before `import()` to its resolution is what the handler costs before its first event.
 */
export async function coldStart(runs = 5): Promise<ColdStartResult> {
  const outdir = mkdtempSync(join(tmpdir(), 'ta-bench-bundle-'));
  try {
    const { template } = synthApp({ bundle: true, outdir });
    const fn = Object.values(template.findResources('AWS::Lambda::Function'))[0];
    const code = fn?.Properties.Code;
    const asset = join(outdir, `asset.${String(code.S3Key).replace(/\.zip$/, '')}`);
    const bundle = join(asset, 'index.mjs');
    // As Lambda starts the function: through the exec wrapper its environment names (its copy in the
    // asset), given the Node and its arguments.
    const wrapper = fn?.Properties.Environment?.Variables?.AWS_LAMBDA_EXEC_WRAPPER as string | undefined;
    const script = `
      const t0 = performance.now();
      await import(${JSON.stringify(bundle)});
      const ms = performance.now() - t0;
      const { statSync } = await import('node:fs');
      console.log(JSON.stringify({ ms, node: process.versions.node, bytes: statSync(${JSON.stringify(bundle)}).size }));`;
    const samples: { ms: number; node: string; bytes: number }[] = [];
    for (let i = 0; i < runs; i++) {
      const nodeArgs = ['--input-type=module', '-e', script];
      const [command, args] = lambdaCommand(
        LAMBDA_NODE,
        nodeArgs,
        wrapper === undefined ? undefined : join(asset, basename(wrapper)),
      );
      const { stdout } = await promisify(execFile)(command, args, {
        cwd: outdir,
        env: {
          PATH: process.env.PATH ?? '',
          AWS_REGION: 'us-east-1',
          AWS_ACCESS_KEY_ID: 'bench',
          AWS_SECRET_ACCESS_KEY: 'bench',
          TUNNEL_API_KEY_SECRET_ID: 'tunnel-archiver/api-key',
          TOKEN_KEY_SECRET_ID: 'tunnel-archiver/token-key',
          DIGEST_SIGNING_KEY_ID: 'arn:aws:kms:us-east-1:000000000000:key/bench',
          // No AWS here: the token key the handler starts reading at cold start is refused at once.
          AWS_ENDPOINT_URL_SECRETS_MANAGER: 'http://127.0.0.1:9',
          ARCHIVE_DEST: 's3://bench-bucket/',
          ARCHIVE_STATE: 'dynamodb://bench-table',
          LOG_LEVEL: 'warn',
          // As the function's own environment sets it (none: loading the source map costs start-up time).
          NODE_OPTIONS: String(fn?.Properties.Environment?.Variables?.NODE_OPTIONS ?? ''),
        },
      });
      samples.push(JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}'));
    }
    const ms = samples.map((s) => Math.round(s.ms)).sort((a, b) => a - b);
    return {
      node: samples[0]?.node ?? '',
      bundleBytes: samples[0]?.bytes ?? 0,
      samplesMs: ms,
      medianMs: ms[Math.floor(ms.length / 2)] ?? 0,
    };
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}
