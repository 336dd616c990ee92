import { request } from 'node:http';
import { WebSocket } from 'ws';
import { assertAnswer, checkOf } from '@heliograph/core/test/helpers/openapi-check';

export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * An HTTP request with headers fetch would not send as given (Host, Origin). An answer of a
 * server a helper started is checked against its OpenAPI document: a mismatch throws.
 */
export async function rawRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<RawAnswer> {
  const answer = await new Promise<RawAnswer>((resolve, reject) => {
    const req = request(url, { method: options.method ?? 'GET', headers: options.headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
  await checkRaw(url, options.method ?? 'GET', answer);
  return answer;
}

/**
 * Opens a WebSocket; resolves with the socket once open, or with the refusal's status and
 * body (checked, as rawRequest's answers are, as an answer to GET on the socket's path).
 */
export async function openSocket(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ ws: WebSocket } | { status: number; body: string }> {
  const opened = await new Promise<{ ws: WebSocket } | RawAnswer>((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.once('open', () => resolve({ ws }));
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    ws.once('error', (err) => reject(err));
  });
  if ('ws' in opened) return opened;
  await checkRaw(url.replace(/^ws/, 'http'), 'GET', opened);
  return { status: opened.status, body: opened.body };
}

/** Resolves with the close code and reason when the socket closes. */
export function closed(ws: WebSocket): Promise<{ code: number; reason: string }> {
  return new Promise((resolve) => ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
}

/** Checks an answer of a server a helper started against its OpenAPI document: a mismatch throws. */
async function checkRaw(url: string, method: string, answer: RawAnswer): Promise<void> {
  const check = checkOf(url);
  if (!check) return;
  const contentType = answer.headers['content-type'];
  const type = typeof contentType === 'string' ? contentType : null;
  await assertAnswer(check, { method, url }, { status: answer.status, contentType: type, body: answer.body });
}
