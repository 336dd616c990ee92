import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CLOSE_TOO_SLOW } from '../../src/api/websocket/index.js';
import { meta, publish, useStream } from './harness.js';
import { RawClient, valuesOf } from './raw-client.js';

describe('WebSocket slow consumer', { timeout: 20_000 }, () => {
  const server = useStream({ overrides: { maxBufferedBytes: 64 * 1024 } });

  it('closes a socket that stops reading (4008) while another keeps receiving every tick', async () => {
    server().registry.define(meta('inverter_1/event_log', { type: 'string', unit: '' }), '');
    const fast = await RawClient.connect(server().wsUrl, { form: 'v2' });
    const slow = await RawClient.connect(server().wsUrl, { form: 'v1' });
    await fast.joinAndSync({ topics: [{ topic: 'inverter_1/event_log' }] });
    await slow.joinAndSync({ topics: [{ topic: 'inverter_1/event_log' }] });
    slow.ws.pause(); // stops reading: the kernel buffers fill, then the server's send queue grows

    const chunk = 'x'.repeat(256 * 1024);
    let rounds = 0;
    // Enough bytes to fill both kernel socket buffers many times over; stops once dropped.
    while (server().endpoint.clientCount === 2 && rounds < 400) {
      rounds++;
      await publish(server().registry, { 'inverter_1/event_log': `${rounds}:${chunk}` });
      const data = await fast.next('data');
      assert.ok(
        String(valuesOf(data)['inverter_1/event_log']).startsWith(`${rounds}:`),
        'the fast socket gets every tick, in order',
      );
    }
    assert.equal(
      server().endpoint.clientCount,
      1,
      `the slow socket was still served after ${rounds} rounds of 256 KiB`,
    );

    await publish(server().registry, { 'inverter_1/event_log': 'after' });
    assert.deepEqual(valuesOf(await fast.next('data')), { 'inverter_1/event_log': 'after' });

    slow.ws.resume();
    const closed = await slow.closed;
    assert.equal(closed.code, CLOSE_TOO_SLOW);
    assert.equal(closed.reason, 'too slow: send queue full');
    fast.close();
  });
});
