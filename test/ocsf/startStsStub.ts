import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StsStubHandle {
  endpoint: string;
  /** The AssumeRole calls, each with its RoleArn, ExternalId and RoleSessionName. */
  assumed: { RoleArn: string; ExternalId: string; RoleSessionName: string }[];
  /** The access key id the credentials it hands out carry. */
  accessKeyId: string;
  secretAccessKey: string;
  close(): Promise<void>;
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

/**
 * STS's `AssumeRole` (the query protocol: a form POST, an XML answer) on 127.0.0.1 port 0: records each
 * call and answers with session credentials of a fixed access key id; anything else is a 400.
 */
export async function startStsStub(): Promise<StsStubHandle> {
  const assumed: StsStubHandle['assumed'] = [];
  const accessKeyId = 'ASIASTUBPROVIDER0001';
  const secretAccessKey = 'stub-provider-secret';
  const server = createServer(async (req, res) => {
    const form = await readForm(req);
    if (form.get('Action') !== 'AssumeRole') {
      res.writeHead(400, { 'content-type': 'text/xml' });
      res.end('<ErrorResponse><Error><Code>InvalidAction</Code></Error></ErrorResponse>');
      return;
    }
    const call = {
      RoleArn: form.get('RoleArn') ?? '',
      ExternalId: form.get('ExternalId') ?? '',
      RoleSessionName: form.get('RoleSessionName') ?? '',
    };
    assumed.push(call);
    res.writeHead(200, { 'content-type': 'text/xml' });
    res.end(`<AssumeRoleResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
  <AssumeRoleResult>
    <Credentials>
      <AccessKeyId>${accessKeyId}</AccessKeyId>
      <SecretAccessKey>${secretAccessKey}</SecretAccessKey>
      <SessionToken>stub-session-token</SessionToken>
      <Expiration>2099-01-01T00:00:00Z</Expiration>
    </Credentials>
    <AssumedRoleUser><AssumedRoleId>AROASTUB:${call.RoleSessionName}</AssumedRoleId><Arn>${call.RoleArn}</Arn></AssumedRoleUser>
  </AssumeRoleResult>
  <ResponseMetadata><RequestId>stub</RequestId></ResponseMetadata>
</AssumeRoleResponse>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    assumed,
    accessKeyId,
    secretAccessKey,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
