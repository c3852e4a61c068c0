import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ObjectStore } from '../../lib/archive/store/objectStore.ts';
import { ChecksumJobsStandIn } from '../checksumJobsStandIn.ts';

export interface S3ControlStandInHandle {
  /** For `AWS_ENDPOINT_URL_S3_CONTROL`: `localhost`, since S3 Control puts the account before the host. */
  endpoint: string;
  /** The jobs CreateJob started, with the range each one covers. */
  created: { jobId: string; createdAfter?: string; createdBefore: string }[];
  /** What S3 Batch Operations does between a job's start and its report: runs every pending job. */
  runPending(): Promise<string[]>;
  close(): Promise<void>;
}

async function readText(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

const tag = (xml: string, name: string) => new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1];
const XMLNS = 'http://awss3control.amazonaws.com/doc/2018-08-20/';

/**
 * S3 Control's `CreateJob` and `DescribeJob` (REST-XML, `/v20180820/jobs`) over the dev kit's Compute
 * checksum stand-in (`ChecksumJobsStandIn`), which keeps its jobs and writes their reports in the archive
 * store as AWS lays them out. A job is `Active` until `runPending`, then `Complete`.
 */
export async function startS3ControlStandIn(objects: ObjectStore): Promise<S3ControlStandInHandle> {
  const jobs = new ChecksumJobsStandIn(objects);
  const created: S3ControlStandInHandle['created'] = [];
  const server = createServer(async (req, res) => {
    const body = await readText(req);
    res.setHeader('content-type', 'application/xml');
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (req.method === 'POST' && path === '/v20180820/jobs') {
      const createdBefore = tag(body, 'CreatedBefore');
      const createdAfter = tag(body, 'CreatedAfter');
      const token = tag(body, 'ClientRequestToken');
      if (createdBefore === undefined || token === undefined) {
        res.statusCode = 400;
        return res.end(`<Error><Code>InvalidRequest</Code><Message>no filter or token</Message></Error>`);
      }
      const jobId = await jobs.submit({
        token,
        createdBefore: new Date(createdBefore),
        ...(createdAfter === undefined ? {} : { createdAfter: new Date(createdAfter) }),
      });
      created.push({ jobId, createdBefore, ...(createdAfter === undefined ? {} : { createdAfter }) });
      return res.end(`<CreateJobResult xmlns="${XMLNS}"><JobId>${jobId}</JobId></CreateJobResult>`);
    }
    const describe = /^\/v20180820\/jobs\/([\w-]+)$/.exec(path);
    if (req.method === 'GET' && describe) {
      const jobId = describe[1] as string;
      const status = (await jobs.report(jobId)) ? 'Complete' : 'Active';
      return res.end(
        `<DescribeJobResult xmlns="${XMLNS}"><Job><JobId>${jobId}</JobId><Status>${status}</Status></Job></DescribeJobResult>`,
      );
    }
    res.statusCode = 400;
    res.end(`<Error><Code>NotImplemented</Code><Message>${req.method} ${path}</Message></Error>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://localhost:${port}`,
    created,
    runPending: () => jobs.runPending(),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
