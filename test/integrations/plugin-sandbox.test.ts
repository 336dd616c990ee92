// A hostile third-party plugin, with no grants, in the real server process (started as
// `npm start` would, HELIOGRAPH_PASSWORD in its environment): every attempt on the house is
// refused, each refusal is in the plugin's log and the audit with its code, and the API
// answers meanwhile. Its publish flood is cut to its rate.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { startChildServer, type ChildServer } from '../helpers/child-server.js';
import { pollUntil, within } from '../helpers/deadline.js';
import { REPO_ROOT, tempDir } from '../helpers/server.js';
import type { AuditEntry } from '@heliograph/core/api-types';

const dir = tempDir();
const dataDir = join(dir, 'data');
let server: ChildServer | undefined;
after(() => server?.stop());
/** The `attacks: {...}` line the plugin logs once its setup tried everything. */
let attacks: Record<string, string>;

test('the hostile plugin starts in its sandbox and tries everything', async () => {
  server = await startChildServer({
    dir,
    external: ['hostile'],
    plugins: [{ id: 'evil', plugin: 'hostile', devices: ['hostile_1'], config: { dataDir, flood: true } }],
  });
  const [, json] = await server.waitFor(/\[plugin:evil\] attacks: (\{.*\})$/m, "the hostile plugin's attacks line");
  attacks = JSON.parse(json!) as Record<string, string>;
});

test('its environment holds no secret: the admin password is not passed on', () => {
  assert.equal(attacks.env, 'refused absent');
  assert.doesNotMatch(attacks.envNames!, /HELIOGRAPH/);
});

test("the server's command line, the data directory and the database are out of reach by every path", () => {
  for (const key of [
    'parentCmdline',
    'ownEnviron',
    'dataDirList',
    'dbRead',
    'dbReadAsync',
    'dbWrite',
    'pluginsFileWrite',
  ])
    assert.equal(attacks[key], 'refused ERR_ACCESS_DENIED', key);
  // node:sqlite would open any file whatever the permission model says: it is not there at all.
  assert.equal(attacks.nodeSqlite, 'refused ERR_UNKNOWN_BUILTIN_MODULE');
  assert.equal(attacks.sqlite3Addon, 'refused ERR_DLOPEN_DISABLED');
});

test('it starts no process and no worker thread, and writes only its own folder', () => {
  assert.equal(attacks.childProcess, 'refused ERR_ACCESS_DENIED');
  assert.equal(attacks.workerThread, 'refused ERR_ACCESS_DENIED');
  assert.equal(attacks.ownDirWrite, 'done {"ok":true}');
});

test('its store is bounded: 50 MB in one value or in parts is refused with a stable code', () => {
  assert.equal(attacks.store50MB, 'refused STORE_QUOTA_EXCEEDED');
  assert.equal(attacks.storeManyMB, 'refused STORE_QUOTA_EXCEEDED');
});

test("each refusal is in the plugin's log and in the audit, with its code", async () => {
  const output = server!.output();
  for (const pattern of [
    /warn \[plugin:evil\] ERR_ACCESS_DENIED: the sandbox refused FileSystemRead of \S+\/heliograph\.db \(fs\.readFileSync\)/,
    /warn \[plugin:evil\] ERR_ACCESS_DENIED: the sandbox refused FileSystemRead of \S+\/cmdline/,
    /warn \[plugin:evil\] ERR_ACCESS_DENIED: the sandbox refused ChildProcess/,
    /warn \[plugin:evil\] ERR_ACCESS_DENIED: the sandbox refused WorkerThreads/,
    /warn \[plugin:evil\] ERR_ACCESS_DENIED: the sandbox refused Addon/,
    /warn \[plugin:evil\] STORE_QUOTA_EXCEEDED: /,
  ])
    assert.match(output, pattern);
  const entries = (await (await server!.api('/api/v1/audit?limit=200')).json()) as AuditEntry[];
  const mine = entries.filter((e) => e.who === 'plugin:evil' && e.via === 'hostile' && e.result === 'error');
  const codes = new Set(mine.map((e) => e.message?.split(':')[0]));
  for (const code of ['ERR_ACCESS_DENIED', 'STORE_QUOTA_EXCEEDED'])
    assert.ok(codes.has(code), `${code} in the audit: ${JSON.stringify(mine.slice(0, 5))}`);
  assert.ok(
    mine.some((e) => e.new_value.includes('heliograph.db')),
    'the audit names the file it was refused',
  );
});

test('its publishes are cut to its rate, reported with their code, and the API answers meanwhile', async () => {
  const read = async () => {
    const res = await server!.api('/api/v1/metrics?topic=hostile_1/count&value=1');
    return res.status === 200 ? Number(await res.text()) : 0;
  };
  await pollUntil(async () => ({ done: (await read()) > 0 }), 'hostile_1/count published');
  // Each run offers 5000 publishes; 50 a second (and a burst of 100) pass, the rest are
  // dropped and counted in a report every 10 s.
  const [, dropped] = await within(
    server!.waitFor(
      /warn \[plugin:evil\] PUBLISH_RATE_EXCEEDED: (\d{4,}) publishes dropped/,
      'a count of dropped publishes',
    ),
    'PUBLISH_RATE_EXCEEDED with a count in the log',
    40_000,
  );
  assert.ok(Number(dropped) >= 4900, `dropped ${dropped}`);
  const entries = (await (await server!.api('/api/v1/audit?limit=200')).json()) as AuditEntry[];
  assert.ok(entries.some((e) => e.who === 'plugin:evil' && e.message?.startsWith('PUBLISH_RATE_EXCEEDED: ')));
  const list = await server!.api('/api/v1/plugins');
  assert.equal(list.status, 200);
});

test('a plugin folder that holds the data directory (`serve --plugin-dir .` in it) still keeps it out of reach', async () => {
  const own = tempDir();
  cpSync(join(REPO_ROOT, 'test', 'fixtures', 'plugins', 'hostile'), own, { recursive: true });
  symlinkSync(join(REPO_ROOT, 'node_modules'), join(own, 'node_modules'));
  const inside = await startChildServer({
    dir: own,
    args: ['--plugin-dir', own],
    plugins: [{ id: 'evil', plugin: 'hostile', devices: ['hostile_1'], config: { dataDir: join(own, 'data') } }],
  });
  try {
    const [, json] = await inside.waitFor(/\[plugin:evil\] attacks: (\{.*\})$/m, "the hostile plugin's attacks line");
    const tried = JSON.parse(json!) as Record<string, string>;
    for (const key of ['dataDirList', 'dbRead', 'dbReadAsync', 'dbWrite'])
      assert.equal(tried[key], 'refused ERR_ACCESS_DENIED', key);
    assert.equal(tried.ownDirWrite, 'done {"ok":true}');
  } finally {
    await inside.stop();
  }
});
