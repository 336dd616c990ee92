import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ErrorResponse } from '../../src/contract/types.js';
import type { AuthOutcome } from '../../src/auth/types.js';
import { within } from '../helpers/deadline.js';
import { PASSWORD, REALM, startStream, TOKEN, useStream } from './harness.js';
import { RawClient } from './raw-client.js';

describe('WebSocket auth: checked before the upgrade', { timeout: 10_000 }, () => {
  const server = useStream();

  it('refuses an upgrade without credentials with 401, the Bearer challenge and a JSON error', async () => {
    const refusal = await RawClient.refused(server().wsUrl, { vsn: '2.0.0' });
    assert.equal(refusal.status, 401);
    assert.equal(refusal.headers['www-authenticate'], `Bearer realm="${REALM}"`);
    assert.match(String(refusal.headers['content-type']), /^application\/json/);
    assert.deepEqual(JSON.parse(refusal.body), {
      error: 'credentials required: pass ?password= or ?token=',
      code: 'AUTH_FAILED',
    });
    assert.equal(server().endpoint.clientCount, 0);
  });

  it('lets in the password and a token, in the query', async () => {
    const byPassword = await RawClient.connect(server().wsUrl, { query: { password: PASSWORD } });
    const byToken = await RawClient.connect(server().wsUrl, { query: { token: TOKEN } });
    assert.equal(server().endpoint.clientCount, 2);
    await byPassword.barrier();
    await byToken.barrier();
    byPassword.close();
    byToken.close();
    await Promise.all([byPassword.closed, byToken.closed]);
  });

  it('answers 404 for an upgrade on another path', async () => {
    const refusal = await RawClient.refused(server().wsUrl.replace('/api/websocket', '/api/socket'), {
      password: PASSWORD,
    });
    assert.equal(refusal.status, 404);
    assert.match((JSON.parse(refusal.body) as ErrorResponse).error, /the live stream is at \/api\/websocket/);
  });

  it('answers a plain HTTP request to the stream with 426 and what to do', async () => {
    const response = await fetch(`${server().httpUrl}/api/websocket`);
    assert.equal(response.status, 426);
    assert.equal(response.headers.get('upgrade'), 'websocket');
    assert.match(((await response.json()) as { error: string }).error, /is a WebSocket endpoint/);
  });

  it('counts failed upgrades: after five, 429 with Retry-After even with the right password', async () => {
    for (let i = 0; i < 5; i++) {
      const refusal = await RawClient.refused(server().wsUrl, { password: 'wrong' });
      assert.equal(refusal.status, 401);
      assert.deepEqual(JSON.parse(refusal.body), { error: 'wrong password or token', code: 'AUTH_FAILED' });
    }
    const throttled = await RawClient.refused(server().wsUrl, { password: PASSWORD });
    assert.equal(throttled.status, 429);
    assert.equal(throttled.headers['retry-after'], '1');
    assert.equal(throttled.headers['www-authenticate'], undefined);
    assert.match((JSON.parse(throttled.body) as ErrorResponse).error, /too many failed logins/);
  });

  it('refuses an upgrade whose credentials were still being checked when the stream closed: 503', async () => {
    // An authenticator that holds its answer until told, so the stream closes mid-check.
    let asked!: () => void;
    const checking = new Promise<void>((resolve) => (asked = resolve));
    let answer!: (outcome: AuthOutcome) => void;
    const held = new Promise<AuthOutcome>((resolve) => (answer = resolve));
    const auth = {
      authenticate: () => {
        asked();
        return held;
      },
    };
    const closing = await startStream({ auth });
    try {
      const refusal = RawClient.refused(closing.wsUrl, { password: PASSWORD });
      await within(checking, 'the upgrade reaching the authenticator');
      const closed = closing.endpoint.close();
      answer({ ok: true, who: 'admin', scope: 'admin' });
      const { status, body } = await within(refusal, 'the refusal of the upgrade');
      await closed;
      assert.equal(status, 503);
      assert.deepEqual(JSON.parse(body), {
        error: 'the server is shutting down; reconnect in a moment',
        code: 'SHUTTING_DOWN',
      });
    } finally {
      await closing.stop();
    }
  });
});
