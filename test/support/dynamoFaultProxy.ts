import { forwardRequest, startProxyServer } from './proxyServer.ts';

/** What the proxy answers in the server's place: a status and a DynamoDB JSON body. */
export interface ProxyAnswer {
  status: number;
  body: Record<string, unknown>;
}

export interface DynamoFaultProxy {
  /** `http://127.0.0.1:PORT`: the DynamoDB client's endpoint (`AWS_ENDPOINT_URL_DYNAMODB`). */
  url: string;
  /** Every operation asked for, in order (`DescribeTable`, `CreateTable`...), answered by either side. */
  operations(): string[];
  /** The request bodies (DynamoDB JSON) of one operation, in order. */
  requests(operation: string): Record<string, unknown>[];
  close(): Promise<void>;
}

/** DynamoDB's error answer, as the SDK parses it (`__type` names the exception). */
export function dynamoError(status: number, type: string, message: string): ProxyAnswer {
  return { status, body: { __type: `com.amazonaws.dynamodb.v20120810#${type}`, message } };
}

/**
 * An HTTP proxy in front of a DynamoDB-compatible server (dynalite) that records every operation and lets
 * `answer` reply in the server's place: what dynalite cannot act, such as IAM refusing an action
 * (`AccessDeniedException`) or an operation it does not implement (point-in-time recovery).
 */
export async function startDynamoFaultProxy(options: {
  target: string;
  answer?: (operation: string) => ProxyAnswer | undefined;
}): Promise<DynamoFaultProxy> {
  const target = new URL(options.target);
  const seen: { operation: string; body: string }[] = [];
  const server = await startProxyServer(async (req, body, res) => {
    const amzTarget = String(req.headers['x-amz-target'] ?? '');
    const operation = amzTarget.slice(amzTarget.lastIndexOf('.') + 1);
    seen.push({ operation, body: body.toString('utf8') });
    const own = options.answer?.(operation);
    if (own !== undefined) {
      res.writeHead(own.status, { 'content-type': 'application/x-amz-json-1.0' });
      res.end(JSON.stringify(own.body));
      return;
    }
    const upstream = await forwardRequest(target, req, body);
    res.writeHead(upstream.status, upstream.headers);
    res.end(upstream.body);
  });
  return {
    url: server.url,
    operations: () => seen.map((s) => s.operation),
    requests: (operation) =>
      seen.filter((s) => s.operation === operation).map((s) => JSON.parse(s.body) as Record<string, unknown>),
    close: server.close,
  };
}
