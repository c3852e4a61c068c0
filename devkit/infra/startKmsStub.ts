import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ecdsaSignDigest } from './ecdsaSignDigest.ts';

export interface KmsStubHandle {
  /** For `AWS_ENDPOINT_URL_KMS`. */
  endpoint: string;
  /** `X-Amz-Target` operations asked for, in order. */
  requests: string[];
  publicKey: KeyObject;
  close(): Promise<void>;
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
}

/**
 * The two KMS calls the digest signer makes (`GetPublicKey`, `Sign` with `MessageType: DIGEST`, AWS
 * JSON 1.1), over one P-256 key held here, on 127.0.0.1 port 0. A DIGEST message is signed as the
 * pre-hashed value it is (ECDSA over the 32 bytes, no second hash), exactly as KMS does.
 */
export async function startKmsStub(): Promise<KmsStubHandle> {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const requests: string[] = [];
  const server = createServer(async (req, res) => {
    const target = String(req.headers['x-amz-target'] ?? '').replace(/^TrentService\./, '');
    const body = await readJson(req);
    requests.push(target);
    const reply = (status: number, payload: unknown) => {
      res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
      res.end(JSON.stringify(payload));
    };
    if (target === 'GetPublicKey') {
      reply(200, {
        KeyId: String(body.KeyId),
        PublicKey: publicKey.export({ type: 'spki', format: 'der' }).toString('base64'),
        KeySpec: 'ECC_NIST_P256',
        KeyUsage: 'SIGN_VERIFY',
        SigningAlgorithms: ['ECDSA_SHA_256'],
      });
    } else if (target === 'Sign' && body.MessageType === 'DIGEST') {
      const digest = Buffer.from(String(body.Message), 'base64');
      const signature = ecdsaSignDigest(privateKey, digest);
      reply(200, {
        KeyId: String(body.KeyId),
        Signature: signature.toString('base64'),
        SigningAlgorithm: 'ECDSA_SHA_256',
      });
    } else {
      reply(400, { __type: 'UnsupportedOperationException', message: `stub does not implement ${target}` });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    requests,
    publicKey,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
