/** A response the server writes as is. */
export interface EmulatorResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
};

/** Spring Boot's default JSON error body (400, 404). */
export function springError(status: number, message: string, path: string, now: Date): EmulatorResponse {
  const body = { timestamp: now.toISOString(), status, error: REASONS[status] ?? 'Error', message, path };
  return json(status, body);
}

/** 401 as Spring Security sends it: empty body, a challenge header. */
export function unauthorized(): EmulatorResponse {
  return { status: 401, headers: { 'www-authenticate': 'Bearer' }, body: '' };
}

/** 403 for a key whose account is not on the paid plan: a terse JSON body of another shape. */
export function forbidden(): EmulatorResponse {
  return json(403, { error: 'forbidden', message: 'API access is available on paid plans only' });
}

/** 429: plain text, with Retry-After as configured. */
export function tooManyRequests(retryAfter: string | null): EmulatorResponse {
  const headers: Record<string, string> = { 'content-type': 'text/plain; charset=utf-8' };
  if (retryAfter !== null) headers['retry-after'] = retryAfter;
  return { status: 429, headers, body: 'Too Many Requests' };
}

/** 5xx as a proxy in front of the service would send it: HTML, never JSON. */
export function htmlError(status: number, retryAfterSeconds?: number): EmulatorResponse {
  const title = `${status} ${REASONS[status] ?? 'Error'}`;
  const headers: Record<string, string> = { 'content-type': 'text/html; charset=utf-8' };
  if (retryAfterSeconds !== undefined) headers['retry-after'] = String(retryAfterSeconds);
  const body = `<html>\r\n<head><title>${title}</title></head>\r\n<body>\r\n<center><h1>${title}</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n`;
  return { status, headers, body };
}

export function methodNotAllowed(): EmulatorResponse {
  return { status: 405, headers: { allow: 'GET' }, body: '' };
}

export function json(status: number, value: unknown): EmulatorResponse {
  return { status, headers: { 'content-type': 'application/json' }, body: JSON.stringify(value) };
}
