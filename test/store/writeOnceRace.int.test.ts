import { PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type S3rverHandle, s3rverClient, startS3rver } from '../../devkit/startS3rver.ts';
import { createS3ObjectStore } from '../../lib/archive/store/s3ObjectStore.ts';
import { startWriteOnceFront, type WriteOnceFront } from '../support/writeOnceS3Front.ts';

let s3: S3rverHandle;
let front: WriteOnceFront;
beforeAll(async () => {
  s3 = await startS3rver();
  // Each conditional write stays in flight 60 ms: two racing writers meet there, every time.
  front = await startWriteOnceFront(s3, { holdMs: 60 });
});
afterAll(async () => {
  await front?.close();
  await s3?.close();
});
afterEach(() => {
  front.beforeDecide = undefined;
});

/** Another writer lands `body` at `key` (under the stores' prefix) once, between a writer's check and its write. */
function racerWritesBetweenCheckAndWrite(key: string, body: string): { wrote: () => number } {
  let wrote = 0;
  front.beforeDecide = async (bucket, target) => {
    if (target !== `race/${key}` || wrote > 0) return;
    wrote++;
    await s3.client.send(new PutObjectCommand({ Bucket: bucket, Key: target, Body: body }));
  };
  return { wrote: () => wrote };
}

/** Two writers, each with its own store (as two Lambdas), both behind the S3 front. */
const writers = () =>
  [1, 2].map(() => createS3ObjectStore({ client: front.client, bucket: s3.bucket, prefix: 'race' }));
const text = (b: Uint8Array | undefined) => (b === undefined ? undefined : new TextDecoder().decode(b));

describe('write-once under a race, against an S3 front that enforces If-None-Match as S3 does', () => {
  it('putIfAbsent: exactly one of two racing writers wins; the loser is told, whatever it meets (409 or 412)', async () => {
    const before = { ...front.stats };
    const [a, b] = writers();
    const won = await Promise.all([
      a!.putIfAbsent('digests/0000000001.json', 'A'),
      b!.putIfAbsent('digests/0000000001.json', 'B'),
    ]);
    expect(won.filter(Boolean)).toHaveLength(1);
    expect(text(await a!.get('digests/0000000001.json'))).toBe(won[0] ? 'A' : 'B');
    // The race really happened: the front refused a conditional write (409 in flight, or 412 after).
    expect(front.stats.conflicts + front.stats.preconditionFailed).toBeGreaterThan(
      before.conflicts + before.preconditionFailed,
    );
  });

  it('publish, identical bytes: both publishers carry on; one object, both staged copies gone', async () => {
    const before = { ...front.stats };
    const [a, b] = writers();
    await a!.put('_staging/r1/x.parquet', 'same bytes');
    await b!.put('_staging/r2/x.parquet', 'same bytes');
    await Promise.all([
      a!.publish('_staging/r1/x.parquet', 'history/dt=2026-11-20/x.parquet'),
      b!.publish('_staging/r2/x.parquet', 'history/dt=2026-11-20/x.parquet'),
    ]);
    expect(text(await a!.get('history/dt=2026-11-20/x.parquet'))).toBe('same bytes');
    expect(await a!.head('_staging/r1/x.parquet')).toBeUndefined();
    expect(await a!.head('_staging/r2/x.parquet')).toBeUndefined();
    expect(front.stats.conflicts + front.stats.preconditionFailed).toBeGreaterThan(
      before.conflicts + before.preconditionFailed,
    );
  });

  it('publish, different bytes: the winner’s object stays, the loser fails loudly and keeps its staged copy', async () => {
    const [a, b] = writers();
    await a!.put('_staging/r3/y.parquet', 'bytes of A');
    await b!.put('_staging/r4/y.parquet', 'bytes of B');
    const outcomes = await Promise.allSettled([
      a!.publish('_staging/r3/y.parquet', 'history/dt=2026-11-21/y.parquet'),
      b!.publish('_staging/r4/y.parquet', 'history/dt=2026-11-21/y.parquet'),
    ]);
    expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
    const loser = outcomes.findIndex((o) => o.status === 'rejected');
    expect((outcomes[loser] as PromiseRejectedResult).reason).toMatchObject({
      code: 'STORE_FAILED',
      message: expect.stringMatching(/write-once conflict/),
    });
    const winnerBytes = loser === 0 ? 'bytes of B' : 'bytes of A';
    expect(text(await a!.get('history/dt=2026-11-21/y.parquet'))).toBe(winnerBytes);
    const loserStaged = loser === 0 ? '_staging/r3/y.parquet' : '_staging/r4/y.parquet';
    expect(text(await a!.get(loserStaged))).toBe(loser === 0 ? 'bytes of A' : 'bytes of B');
  });

  it('putIfAbsent: a target created between the check and the write is answered 412, and the writer is told it lost', async () => {
    const before = front.stats.preconditionFailed;
    const [a] = writers();
    const racer = racerWritesBetweenCheckAndWrite('digests/0000000002.json', 'racer');
    expect(await a!.putIfAbsent('digests/0000000002.json', 'A')).toBe(false);
    expect(racer.wrote()).toBe(1);
    expect(front.stats.preconditionFailed).toBe(before + 1);
    expect(text(await a!.get('digests/0000000002.json'))).toBe('racer');
  });

  it('publish: a target created between the check and the copy is answered 412; the same bytes finish the publish', async () => {
    const before = front.stats.preconditionFailed;
    const [a] = writers();
    await a!.put('_staging/r5/z.parquet', 'our bytes');
    const racer = racerWritesBetweenCheckAndWrite('history/dt=2026-11-22/z.parquet', 'our bytes');
    await a!.publish('_staging/r5/z.parquet', 'history/dt=2026-11-22/z.parquet');
    expect(racer.wrote()).toBe(1);
    expect(front.stats.preconditionFailed).toBe(before + 1);
    expect(text(await a!.get('history/dt=2026-11-22/z.parquet'))).toBe('our bytes');
    expect(await a!.head('_staging/r5/z.parquet')).toBeUndefined();
  });

  it('publish: a target created between the check and the copy with other bytes is answered 412 and fails loudly', async () => {
    const before = front.stats.preconditionFailed;
    const [a] = writers();
    await a!.put('_staging/r6/w.parquet', 'our bytes');
    racerWritesBetweenCheckAndWrite('history/dt=2026-11-23/w.parquet', 'their bytes');
    await expect(
      a!.publish('_staging/r6/w.parquet', 'history/dt=2026-11-23/w.parquet'),
    ).rejects.toMatchObject({
      code: 'STORE_FAILED',
      message: expect.stringMatching(/write-once conflict/),
    });
    expect(front.stats.preconditionFailed).toBe(before + 1);
    expect(text(await a!.get('history/dt=2026-11-23/w.parquet'))).toBe('their bytes');
    expect(text(await a!.get('_staging/r6/w.parquet'))).toBe('our bytes');
  });
});

describe('publish of a staged file another publisher of it moves meanwhile (plain s3rver: the copy meets no source)', () => {
  it('is done: one object with the staged bytes, the staged copy gone, no error', async () => {
    const client = s3rverClient(s3.endpoint);
    const racer = createS3ObjectStore({ client: s3.client, bucket: s3.bucket, prefix: 'moved' });
    const store = createS3ObjectStore({ client, bucket: s3.bucket, prefix: 'moved' });
    const from = '_staging/active/snap-1/dt=2026-11-09/20261110T000000Z-snap-1-0001.parquet';
    const to = 'active/dt=2026-11-09/20261110T000000Z-snap-1-0001.parquet';
    await store.put(from, 'snapshot bytes');
    let raced = 0;
    // Between this publisher's look at the target and its copy, the other publishes the same file.
    client.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'CopyObjectCommand' && raced++ === 0) await racer.publish(from, to);
        return next(args);
      },
      { step: 'initialize', name: 'racingPublisher' },
    );
    await store.publish(from, to);
    expect(raced).toBe(1);
    expect(text(await store.get(to))).toBe('snapshot bytes');
    expect(await store.head(from)).toBeUndefined();
    // Neither source nor target: still an error.
    await expect(
      store.publish('_staging/none/x.parquet', 'active/dt=2026-11-09/x.parquet'),
    ).rejects.toMatchObject({
      code: 'STORE_FAILED',
    });
  });
});
