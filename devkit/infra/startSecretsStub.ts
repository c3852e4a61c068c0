import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SecretsStubHandle {
  /** For `AWS_ENDPOINT_URL_SECRETS_MANAGER`. */
  endpoint: string;
  /** SecretIds asked for, in order. */
  requests: string[];
  close(): Promise<void>;
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
}

/**
 * The one Secrets Manager call the handler makes (`GetSecretValue`, AWS JSON 1.1 protocol), served
 * from `secrets` on 127.0.0.1, port 0. Unknown ids get `ResourceNotFoundException` as AWS sends it.
 */
export async function startSecretsStub(secrets: Record<string, string>): Promise<SecretsStubHandle> {
  const requests: string[] = [];
  const server = createServer(async (req, res) => {
    const target = String(req.headers['x-amz-target'] ?? '');
    const body = await readJson(req);
    const id = String(body.SecretId ?? '');
    const reply = (status: number, payload: unknown) => {
      res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
      res.end(JSON.stringify(payload));
    };
    if (target !== 'secretsmanager.GetSecretValue') {
      reply(400, { __type: 'InvalidRequestException', message: `stub does not implement ${target}` });
      return;
    }
    requests.push(id);
    const value = secrets[id];
    if (value === undefined) {
      reply(400, {
        __type: 'ResourceNotFoundException',
        message: "Secrets Manager can't find the specified secret.",
      });
      return;
    }
    reply(200, {
      ARN: `arn:aws:secretsmanager:us-east-1:000000000000:secret:${id}-AbCdEf`,
      Name: id,
      SecretString: value,
      VersionId: '00000000-0000-0000-0000-000000000001',
      VersionStages: ['AWSCURRENT'],
      CreatedDate: 1_700_000_000,
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
