// The baseline of the metrics benchmark, in its own process like the server it is compared
// with: node:http, no framework, no auth, the snapshot JSON built on every request. With
// `cached` after the file it is the ceiling instead: the same bytes as one Buffer built once,
// sent with Heliograph's headers, the most any node:http server can do for this answer.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';

// Through require(), as the service loads it (core/src/api/node-http.ts): an ES import of
// node:http loads Node's bundled fetch library (undici), about 13 MB that no server needs.
const { createServer } = createRequire(import.meta.url)('node:http') as typeof import('node:http');

const snapshot = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as unknown[];
const cached = Buffer.from(JSON.stringify(snapshot));
const server = createServer(
  process.argv[3] === 'cached'
    ? (_req, res) => {
        res.writeHead(200, {
          'content-type': 'application/json; charset=utf-8',
          'content-length': cached.length,
          'x-content-type-options': 'nosniff',
        });
        res.end(cached);
      }
    : (_req, res) => {
        const body = JSON.stringify(snapshot);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(body);
      },
);
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
