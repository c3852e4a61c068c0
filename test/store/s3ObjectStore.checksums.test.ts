import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createS3ObjectStore } from '../../lib/archive/store/s3ObjectStore.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ta-s3-checksums-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** An S3 client whose calls never leave the process: each is recorded and answered by `answer`. */
function stubbedClient(answer: (command: string, input: Record<string, unknown>) => unknown) {
  const sent: { command: string; input: Record<string, unknown> }[] = [];
  const client = new S3Client({
    region: 'us-east-1',
    endpoint: 'http://127.0.0.1:9',
    credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
  });
  client.middlewareStack.add(
    (_next, context) => async (args) => {
      const input = args.input as Record<string, unknown>;
      sent.push({ command: context.commandName as string, input });
      return { output: answer(context.commandName as string, input) as never, response: {} };
    },
    { step: 'initialize', name: 'answerInProcess' },
  );
  return { client, sent };
}

const notFound = () => {
  throw Object.assign(new Error('not found'), { name: 'NotFound', $metadata: { httpStatusCode: 404 } });
};

describe('createS3ObjectStore and full-object SHA-256 checksums', () => {
  it('sends the SHA-256 of the bytes on every write (put, putIfAbsent, putFile) and asks for one on the copy that publishes', async () => {
    const { client, sent } = stubbedClient((command) => (command === 'HeadObjectCommand' ? notFound() : {}));
    const store = createS3ObjectStore({ client, bucket: 'b', prefix: 'p' });
    const file = join(dir, 'f.bin');
    await writeFile(file, 'abc');
    await store.put('reports/index.html', 'x');
    await store.putIfAbsent('digests/0000000001.json', '{}');
    await store.putFile('_staging/r/dt=2026-01-01/a.parquet', file);
    // publish: HEAD of the target says absent, the copy is answered, then the source is deleted.
    await store.publish('_staging/r/dt=2026-01-01/a.parquet', 'history/dt=2026-01-01/a.parquet');
    const writes = sent.filter((s) => s.command === 'PutObjectCommand' || s.command === 'CopyObjectCommand');
    expect(writes.map((w) => w.command)).toEqual([
      'PutObjectCommand',
      'PutObjectCommand',
      'PutObjectCommand',
      'CopyObjectCommand',
    ]);
    const b64 = (text: string) => createHash('sha256').update(text).digest('base64');
    expect(writes.map((w) => w.input.ChecksumSHA256 ?? w.input.ChecksumAlgorithm)).toEqual([
      b64('x'),
      b64('{}'),
      b64('abc'),
      'SHA256',
    ]);
  });

  it('reads the stored full-object SHA-256 with a HEAD (ChecksumMode ENABLED), as hex', async () => {
    const sha = createHash('sha256').update('abc').digest();
    const answers: Record<string, unknown> = {
      'history/full.parquet': {
        ContentLength: 3,
        ChecksumSHA256: sha.toString('base64'),
        ChecksumType: 'FULL_OBJECT',
      },
      'history/old.parquet': { ContentLength: 3 },
      'history/parts.parquet': {
        ContentLength: 3,
        ChecksumSHA256: `${sha.toString('base64')}-2`,
        ChecksumType: 'COMPOSITE',
      },
    };
    const { client, sent } = stubbedClient(
      (_command, input) => answers[String(input.Key).slice(2)] ?? notFound(),
    );
    const store = createS3ObjectStore({ client, bucket: 'b', prefix: 'p' });
    expect(await store.storedChecksum?.('history/full.parquet')).toEqual({
      size: 3,
      sha256: sha.toString('hex'),
    });
    expect(await store.storedChecksum?.('history/old.parquet')).toEqual({ size: 3 });
    expect(await store.storedChecksum?.('history/parts.parquet')).toEqual({ size: 3 });
    expect(await store.storedChecksum?.('history/gone.parquet')).toBeUndefined();
    expect(sent.every((s) => s.command === 'HeadObjectCommand' && s.input.ChecksumMode === 'ENABLED')).toBe(
      true,
    );
  });
});
