import { type IncomingMessage, request, type ServerResponse } from 'node:http';

/** An S3 error answer, as S3 writes one (XML with its code and message). */
export function s3Error(
  res: ServerResponse,
  status: number,
  code: string,
  message: string,
  by: string,
): void {
  res.writeHead(status, { 'content-type': 'application/xml' });
  res.end(
    `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message}</Message><RequestId>${by}</RequestId></Error>`,
  );
}

/**
 * Passes one request of an S3 front through to its server, headers and body as sent (so the signature still
 * holds), and its answer back; settles when the answer has ended. An unreachable server is a 502.
 */
export function forwardToS3(
  upstream: URL,
  req: IncomingMessage,
  res: ServerResponse,
  by: string,
): Promise<void> {
  return new Promise((resolve) => {
    const out = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: req.headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        answer.on('end', resolve);
        answer.on('error', resolve);
      },
    );
    out.on('error', () => {
      s3Error(res, 502, 'BadGateway', 'upstream failed', by);
      resolve();
    });
    req.pipe(out);
  });
}
