import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, test } from 'node:test';
import got from 'got';
import { sendJson, startFakeServer, stopFakeServers } from '../src/fake-server.js';

const http = got.extend({ retry: { limit: 0 }, timeout: { request: 5000 } });

describe('startFakeServer', () => {
  test('records method, path, query, headers and body, and sends content-length', async () => {
    const fake = await startFakeServer({
      handle: (request, response, url) => sendJson(response, 200, { echo: request.body, self: url }),
    });
    try {
      const response = await http.post(`${fake.url}/v1/gql?debug=1`, {
        body: '{"query":"{ viewer }"}',
        headers: { authorization: 'Bearer t' },
      });
      assert.deepEqual(JSON.parse(response.body), { echo: '{"query":"{ viewer }"}', self: fake.url });
      assert.equal(response.headers['content-length'], String(Buffer.byteLength(response.body)));
      assert.equal(response.headers['content-type'], 'application/json');
      const [seen] = fake.requests;
      assert.equal(seen?.method, 'POST');
      assert.equal(seen?.path, '/v1/gql');
      assert.equal(seen?.query.get('debug'), '1');
      assert.equal(seen?.headers.authorization, 'Bearer t');
    } finally {
      await fake.close();
    }
  });

  test('a handler that throws answers HTTP 500 with the error', async () => {
    const fake = await startFakeServer({
      handle: () => {
        throw new Error('no answer planned for this');
      },
    });
    try {
      const response = await http.get(fake.url, { throwHttpErrors: false });
      assert.equal(response.statusCode, 500);
      assert.equal(response.body, 'fake server failed: Error: no answer planned for this');
    } finally {
      await fake.close();
    }
  });
});

describe('stopFakeServers', () => {
  test('closes every fake server not closed yet', async () => {
    const fakes = await Promise.all([1, 2].map(() => startFakeServer({ handle: (_r, res) => sendJson(res, 200, {}) })));
    await fakes[0]!.close();
    await stopFakeServers();
    for (const fake of fakes) await assert.rejects(http.get(fake.url), /ECONNREFUSED/);
  });

  test('a fake server a throwing test forgot does not keep the process alive', async () => {
    const module = new URL('../src/fake-server.js', import.meta.url).href;
    const script = `const { startFakeServer } = await import(${JSON.stringify(module)}); await startFakeServer({ handle: () => {} }); console.log('listening');`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    const [code, signal] = (await once(child, 'exit')) as [number | null, string | null];
    clearTimeout(timer);
    assert.deepEqual([code, signal], [0, null], 'the process ended by itself within 10 s');
  });
});
