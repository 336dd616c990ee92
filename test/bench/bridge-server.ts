/**
 * The service side of `npm run bench:bridge`, run as a child process so its CPU time and
 * RSS are its own: the real service with a 500-topic inverter, the MQTT bridge and the
 * history mirror. Answers `usage` requests with its CPU time and RSS.
 */
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startHeliograph } from '@heliograph/core/server';
import { REPO_ROOT } from './support.js';

const [brokerUrl, receiverUrl, topics] = process.argv.slice(2) as [string, string, string];
const dir = mkdtempSync(join(tmpdir(), 'heliograph-bench-bridge-'));
const root = join(dir, 'root');
mkdirSync(join(root, 'plugins'), { recursive: true });
for (const name of ['mqtt', 'history-mirror'])
  symlinkSync(join(REPO_ROOT, 'plugins', name), join(root, 'plugins', name));
symlinkSync(join(REPO_ROOT, 'test', 'fixtures', 'plugins', 'many-topics'), join(root, 'plugins', 'many-topics'));
const pluginsFile = join(dir, 'plugins.json');
writeFileSync(
  pluginsFile,
  JSON.stringify({
    plugins: [
      { id: 'load', plugin: 'many-topics', devices: ['inverter_1'], config: { count: Number(topics) } },
      { id: 'mqtt', plugin: 'mqtt', config: { url: brokerUrl } },
      {
        id: 'mirror',
        plugin: 'history-mirror',
        config: { target: 'prometheus-remote-write', url: `${receiverUrl}/api/v1/write`, flushIntervalMs: 5000 },
      },
    ],
  }),
);
const server = await startHeliograph({
  host: '127.0.0.1',
  port: 0,
  dataDir: join(dir, 'data'),
  pluginsFile,
  rootDir: root,
  mdns: { enabled: false },
});
await server.pluginsStarted;
process.on('message', (message: string) => {
  if (message === 'usage') process.send!({ cpu: process.cpuUsage(), rss: process.memoryUsage().rss });
  if (message === 'stop') void server.close().then(() => process.exit(0));
});
process.send!('ready');
