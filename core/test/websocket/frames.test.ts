import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CLOSE_IDLE } from '../../src/api/websocket/index.js';
import { useStream } from './harness.js';
import { RawClient } from './raw-client.js';

describe('WebSocket frames: serializers, heartbeat, errors', { timeout: 10_000 }, () => {
  const server = useStream();

  it('answers a heartbeat in the v1 object form without vsn', async () => {
    const client = await RawClient.connect(server().wsUrl, { form: 'v1' });
    const reply = await client.request('phoenix', 'heartbeat', {});
    assert.deepEqual(reply.raw, {
      topic: 'phoenix',
      event: 'phx_reply',
      payload: { status: 'ok', response: {} },
      ref: '1',
    });
    client.close();
  });

  it('answers a heartbeat in the v2 array form with vsn=2.0.0', async () => {
    const client = await RawClient.connect(server().wsUrl, { form: 'v2' });
    const reply = await client.request('phoenix', 'heartbeat', {});
    assert.deepEqual(reply.raw, [null, '1', 'phoenix', 'phx_reply', { status: 'ok', response: {} }]);
    client.close();
  });

  it('answers a join on any other topic with "unmatched topic", in the client\'s form', async () => {
    const v2 = await RawClient.connect(server().wsUrl, { form: 'v2' });
    const reply = await v2.request('rooms:lobby', 'phx_join', {}, '7');
    assert.deepEqual(reply.raw, [
      '7',
      '1',
      'rooms:lobby',
      'phx_reply',
      { status: 'error', response: { reason: 'unmatched topic' } },
    ]);
    const v1 = await RawClient.connect(server().wsUrl, { form: 'v1' });
    const v1Reply = await v1.request('metrics:other', 'phx_join', {});
    assert.deepEqual(v1Reply.raw, {
      topic: 'metrics:other',
      event: 'phx_reply',
      payload: { status: 'error', response: { reason: 'unmatched topic' } },
      ref: '1',
    });
    v1.close();
    v2.close();
  });

  it('answers malformed frames with an error where they carry a ref, and keeps the socket open', async () => {
    const v2 = await RawClient.connect(server().wsUrl, { form: 'v2' });
    v2.sendRaw('{not json');
    v2.ws.send(Buffer.from([1, 2, 3]), { binary: true });
    v2.sendRaw({ topic: 'phoenix', event: 'heartbeat', payload: {}, ref: '40' });
    const wrongForm = await v2.take((f) => f.ref === '40');
    assert.equal(wrongForm.event, 'phx_reply');
    assert.equal(wrongForm.payload.status, 'error');
    assert.match(wrongForm.payload.response.reason, /expected a frame \[join_ref, ref, topic, event, payload\]/);
    v2.sendRaw([null, '41', 'metrics', 42, {}]);
    const badEvent = await v2.take((f) => f.ref === '41');
    assert.equal(badEvent.topic, 'metrics');
    assert.equal(badEvent.payload.status, 'error');
    // A frame without a ref cannot be answered; it is dropped without harm.
    v2.sendRaw([null, null, 'metrics', 'phx_join', { topics: 'total/*' }]);
    await v2.barrier();
    assert.deepEqual(v2.pending(), []);

    const v1 = await RawClient.connect(server().wsUrl, { form: 'v1' });
    v1.sendRaw(['j', null, 'phoenix', 'heartbeat', {}]);
    v1.sendRaw({ topic: 'phoenix', ref: '9' });
    const missingEvent = await v1.take((f) => f.ref === '9');
    assert.equal(missingEvent.topic, 'phoenix');
    assert.match(missingEvent.payload.response.reason, /expected a frame \{"topic", "event", "payload", "ref"\}/);
    await v1.barrier();
    assert.deepEqual(v1.pending(), []);
    assert.equal(server().endpoint.clientCount, 2);
    v1.close();
    v2.close();
  });

  it('drops a frame nested thousands of levels deep without harm, and keeps the socket open', async () => {
    const client = await RawClient.connect(server().wsUrl, { form: 'v2' });
    const deep = '['.repeat(5000) + ']'.repeat(5000);
    client.sendRaw(`[null, "60", "metrics", "set", ${deep}]`);
    await client.barrier();
    assert.deepEqual(client.pending(), []);
    const reply = await client.request('phoenix', 'heartbeat', {});
    assert.equal(reply.payload.status, 'ok');
    client.close();
  });

  it('explains a bad join payload, an unknown event, and events sent before joining', async () => {
    const client = await RawClient.connect(server().wsUrl, { form: 'v1' });
    const notJoined = await client.request('metrics', 'topics', { topics: [{ topic: 'total/*' }] });
    assert.equal(notJoined.payload.status, 'error');
    assert.match(notJoined.payload.response.reason, /not joined: join topic metrics/);
    const badTopics = await client.join({ topics: 'total/*' });
    assert.equal(badTopics.payload.status, 'error');
    assert.match(badTopics.payload.response.reason, /^topics must be a list/);
    const badEntry = await client.join({ topics: [{ topic: 'total/*', max_frequency_s: -1 }] });
    assert.equal(
      badEntry.payload.response.reason,
      'topics[0].max_frequency_s: max_frequency_s must be 0 or more seconds',
    );
    assert.equal((await client.join()).payload.status, 'ok');
    const unknown = await client.request('metrics', 'subscribe', {});
    assert.equal(unknown.payload.status, 'error');
    assert.match(unknown.payload.response.reason, /unknown event "subscribe" on topic metrics/);
    client.close();
  });
});

describe('WebSocket idle close', { timeout: 10_000 }, () => {
  const server = useStream();

  it('closes a socket from which no frame arrived for 60 s, counting from its last frame', async () => {
    const quiet = await RawClient.connect(server().wsUrl, { form: 'v2' });
    server().timers.advance(30_000);
    await quiet.barrier(); // a heartbeat at 30 s
    server().timers.advance(45_000); // 75 s: only 45 s since the last frame
    assert.equal(server().endpoint.clientCount, 1);
    assert.equal(quiet.ws.readyState, quiet.ws.OPEN);
    server().timers.advance(15_000); // 90 s: 60 s of silence
    const closed = await quiet.closed;
    assert.equal(closed.code, CLOSE_IDLE);
    assert.match(closed.reason, /^idle: no frame for 60 s/);
    assert.equal(server().endpoint.clientCount, 0);
  });
});
