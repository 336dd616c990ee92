// The anchor of the page benchmark, in its own process like the service it is compared with:
// node:http, no framework, serving the built page's files from the folder in argv[2] (the
// precompressed .br or .gz beside each when the browser takes it, as the service does), and
// `{"needs_setup":false}` for GET /api/v1/setup so the page shows its sign-in form. Every
// other path is a 404.
import { createServer } from 'node:http';
import { existsSync, readFileSync } from 'node:fs';
import { extname, join, normalize } from 'node:path';
import type { AddressInfo } from 'node:net';

const dir = process.argv[2]!;
const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
  '.webmanifest': 'application/manifest+json',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};
const setup = Buffer.from('{"needs_setup":false}');

const server = createServer((req, res) => {
  const path = new URL(req.url ?? '/', 'http://anchor').pathname;
  if (path === '/api/v1/setup') {
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': setup.length });
    return void res.end(setup);
  }
  const file = join(dir, normalize(path === '/' ? '/index.html' : path));
  if (!file.startsWith(dir) || !existsSync(file)) {
    res.writeHead(404);
    return void res.end();
  }
  const accepted = String(req.headers['accept-encoding'] ?? '');
  const encoding = ['br', 'gzip'].find(
    (e) => accepted.includes(e) && existsSync(`${file}.${e === 'br' ? 'br' : 'gz'}`),
  );
  const body = readFileSync(encoding ? `${file}.${encoding === 'br' ? 'br' : 'gz'}` : file);
  res.writeHead(200, {
    'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
    'content-length': body.length,
    ...(encoding ? { 'content-encoding': encoding, vary: 'accept-encoding' } : {}),
  });
  res.end(body);
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
