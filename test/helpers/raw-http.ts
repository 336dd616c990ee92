import { request } from 'node:http';
import { WebSocket } from 'ws';
import { assertAnswer, checkOf } from '@heliograph/core/test/openapi-check';

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
  const check = checkOf(url);
  const contentType = answer.headers['content-type'];
  if (check)
    await assertAnswer(
      check,
      { method: options.method ?? 'GET', url },
      { status: answer.status, contentType: typeof contentType === 'string' ? contentType : null, body: answer.body },
    );
  return answer;
}

/** Opens a WebSocket; resolves with the socket once open, or with the refusal's status and body. */
export function openSocket(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ ws: WebSocket } | { status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.once('open', () => resolve({ ws }));
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    ws.once('error', (err) => reject(err));
  });
}

/** Resolves with the close code and reason when the socket closes. */
export function closed(ws: WebSocket): Promise<{ code: number; reason: string }> {
  return new Promise((resolve) => ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
}
