// The log an administrator reads: at debug a line per request without secrets, a lockout with
// the client's address, and a time on every line, a client going away mid-answer included.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { within } from '../helpers/deadline.js';
import { basicAuth, tempDir } from '../helpers/server.js';
import { MAIN, startService } from './service.js';

const SECRET = 'not-in-any-log-7f3a';

test('debug: requests logged without secrets; a lockout names the address; every line has a time', async () => {
  const data = join(tempDir(), 'data');
  mkdirSync(data);
  writeFileSync(join(data, 'plugins.json'), '{ "plugins": [] }\n');
  const service = await startService([process.execPath, MAIN, 'serve', '--data', data], {
    env: { HELIOGRAPH_LOG_LEVEL: 'debug' },
  });
  try {
    assert.equal((await service.api('/api/v1/metrics?topic=system/*')).status, 200);
    await service.waitFor(/GET \/api\/v1\/metrics\?topic=system\/\* 200 [\d.]+ ms 127\.0\.0\.1/, 'the request line');

    // The stream's password in the query, answered 426 over plain HTTP: logged, the value not.
    await fetch(`${service.url}/api/websocket?vsn=2.0.0&password=${SECRET}`);
    await service.waitFor(/GET \/api\/websocket\?vsn=2\.0\.0&password=\*\*\* 426/, 'the stream request line');

    const wrong = basicAuth(SECRET);
    let status = 0;
    for (let i = 0; i < 10 && status !== 429; i++)
      status = (await fetch(`${service.url}/api/v1/metrics`, { headers: { authorization: wrong } })).status;
    assert.equal(status, 429, 'locked out');
    await service.waitFor(
      /warn \[auth\] too many failed logins from 127\.0\.0\.1: refused with 429/,
      'the lockout line',
    );

    // A client that goes away in the middle of a large answer.
    await within(
      new Promise<void>((resolve) => {
        const req = request(`${service.url}/api/v1/history?topic=total/pv_power`, {
          headers: { authorization: wrong },
        });
        req.on('response', (res) => {
          res.destroy();
          resolve();
        });
        req.on('error', () => resolve());
        req.end();
      }),
      'the head of the answer to the client that goes away',
    );
    await service.stop();
    const lines = service.output().trimEnd().split('\n');
    const untimed = lines.filter(
      (line) => !/^listening on /.test(line) && !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z /.test(line),
    );
    assert.deepEqual(untimed, [], 'every log line starts with its time');
    assert.ok(!service.output().includes(SECRET), 'no secret in the log');
  } finally {
    if (service.child.exitCode === null) await service.stop();
  }
});
