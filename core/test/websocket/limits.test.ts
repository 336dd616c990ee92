import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { ManualClock } from '../../src/clock.js';
import { MAX_DISTINCT_FILTER_ENTRIES } from '../../src/api/websocket/selection.js';
import { CLOSE_TOKEN_EXPIRED, CLOSE_TOKEN_REVOKED, TokenSessions } from '../../src/api/websocket/token-sessions.js';
import type { Identity } from '../../src/auth/types.js';
import { ManualTimers, READ_TOKEN, START, startStream, TOKEN, type StreamServer } from './harness.js';
import { RawClient } from './raw-client.js';

describe('WebSocket scopes and filter limits', { timeout: 20_000 }, () => {
  let server: StreamServer;
  const clients: RawClient[] = [];
  beforeEach(async () => (server = await startStream()));
  afterEach(async () => {
    for (const client of clients.splice(0)) client.close();
    await server.stop();
  });
  const connect = async (query?: Record<string, string>) => {
    const client = await RawClient.connect(server.wsUrl, { form: 'v2', query });
    clients.push(client);
    return client;
  };

  it('a read token watches but its set is refused, naming the scope it needs; a write token writes', async () => {
    // The same set, sent by each token.
    const setPriority = (client: RawClient) =>
      client.request('metrics', 'set', { topic: 'inverter_1/output_source_priority', value: 'utility first' }, 'j1');
    const reader = await connect({ token: READ_TOKEN });
    await reader.joinAndSync({ topics: [{ topic: 'inverter_1/*' }] });
    const refused = await setPriority(reader);
    assert.equal(refused.payload.status, 'error');
    assert.match(
      String((refused.payload.response as { reason: string }).reason),
      /token "wall display" has scope read, but set needs scope write/,
    );
    assert.deepEqual(server.written, [], 'nothing was written');

    const writer = await connect({ token: TOKEN });
    await writer.joinAndSync({ topics: [{ topic: 'inverter_1/*' }] });
    const ack = await setPriority(writer);
    assert.equal(ack.payload.status, 'ok');
    assert.equal((await writer.next('set_result')).payload.result, 'ok');
  });

  it('distinct filters are bounded across sockets; equal filters always share, and a refused join says why', async () => {
    const perSocket = 256;
    const fits = Math.floor(MAX_DISTINCT_FILTER_ENTRIES / perSocket);
    const filter = (n: number) => ({
      topics: Array.from({ length: perSocket }, (_, i) => ({ topic: `inverter_${n}_${i}/*` })),
    });
    for (let n = 0; n < fits; n++) {
      const client = await connect();
      assert.equal((await client.join(filter(n))).payload.status, 'ok', `filter ${n}`);
    }
    const over = await connect();
    const refused = await over.join(filter(fits));
    assert.equal(refused.payload.status, 'error');
    assert.match(
      String((refused.payload.response as { reason: string }).reason),
      /already holds 8192 different filter entries/,
    );
    // A filter someone already holds costs nothing more.
    assert.equal((await over.join(filter(0))).payload.status, 'ok');
    // Replacing the only holder's own filter frees its entries first.
    const replaced = await clients[1]!.request('metrics', 'topics', filter(fits), 'j1');
    assert.equal(replaced.payload.status, 'ok');
    // The default filter is always let in: one shared selection, whoever spent the budget.
    assert.equal((await (await connect()).join({})).payload.status, 'ok');
  });
});

describe('token sessions', () => {
  const identity = (id: string, expiresAt: number | null): Identity => ({
    who: id,
    scope: 'read',
    token: { id, expiresAt },
  });

  it('close every socket of a revoked token with 4001, and an expiring token at its expiry with 4002', () => {
    const clock = new ManualClock(START);
    const timers = new ManualTimers(clock);
    const closed: Array<[string, number, string]> = [];
    const sessions = new TokenSessions<{ identity: Identity; name: string }>(clock, timers, (s, code, reason) =>
      closed.push([s.name, code, reason]),
    );
    sessions.track({ identity: identity('a', null), name: 'a1' });
    sessions.track({ identity: identity('a', null), name: 'a2' });
    sessions.track({ identity: identity('b', START + 30 * 86_400_000), name: 'b1' });
    sessions.track({ identity: { who: 'admin', scope: 'admin' }, name: 'password' });
    sessions.revoked('a');
    assert.deepEqual(closed, [
      ['a1', CLOSE_TOKEN_REVOKED, 'token revoked'],
      ['a2', CLOSE_TOKEN_REVOKED, 'token revoked'],
    ]);
    sessions.revoked('a');
    assert.equal(closed.length, 2, 'closed once');
    // Thirty days is past Node's longest timer: it takes two steps, and fires at the expiry.
    timers.advance(30 * 86_400_000 - 1);
    assert.equal(closed.length, 2);
    timers.advance(1);
    assert.deepEqual(closed[2], ['b1', CLOSE_TOKEN_EXPIRED, 'token expired']);
  });

  it('close a socket whose token is already expired at once', () => {
    const clock = new ManualClock(START);
    const closed: number[] = [];
    const sessions = new TokenSessions<{ identity: Identity }>(clock, new ManualTimers(clock), (_s, code) =>
      closed.push(code),
    );
    sessions.track({ identity: identity('c', START) });
    assert.deepEqual(closed, [CLOSE_TOKEN_EXPIRED]);
  });
});
