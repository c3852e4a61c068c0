import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One message the stub took. */
export interface PublishedMessage {
  topicArn: string;
  subject: string | undefined;
  message: string;
}

export interface SnsStubHandle {
  /** For `AWS_ENDPOINT_URL_SNS`. */
  endpoint: string;
  /** Messages published, in order. */
  published: PublishedMessage[];
  close(): Promise<void>;
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

/**
 * The one SNS call the functions make (`Publish`, AWS Query protocol: a form in, XML out), on
 * 127.0.0.1 port 0; every message is kept. Any other action gets the error SNS sends for it.
 */
export async function startSnsStub(): Promise<SnsStubHandle> {
  const published: PublishedMessage[] = [];
  const server = createServer(async (req, res) => {
    const form = await readForm(req);
    const action = form.get('Action');
    res.setHeader('content-type', 'text/xml');
    if (action !== 'Publish') {
      res.statusCode = 400;
      res.end(
        `<ErrorResponse><Error><Type>Sender</Type><Code>InvalidAction</Code><Message>stub does not implement ${action}</Message></Error><RequestId>r</RequestId></ErrorResponse>`,
      );
      return;
    }
    published.push({
      topicArn: String(form.get('TopicArn')),
      subject: form.get('Subject') ?? undefined,
      message: String(form.get('Message')),
    });
    res.end(
      `<PublishResponse xmlns="http://sns.amazonaws.com/doc/2010-03-31/"><PublishResult><MessageId>${randomUUID()}</MessageId></PublishResult><ResponseMetadata><RequestId>${randomUUID()}</RequestId></ResponseMetadata></PublishResponse>`,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    published,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
