import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { meta, publish, useStream } from './harness.js';
import { RawClient, valuesOf } from './raw-client.js';

describe('WebSocket throttling with max_frequency_s', { timeout: 10_000 }, () => {
  const server = useStream({ each: true });

  /** Moves time by heartbeating every 20 s, so the socket is never idle for 60 s. */
  async function advance(client: RawClient, ms: number): Promise<void> {
    while (ms > 0) {
      const step = Math.min(ms, 20_000);
      server().timers.advance(step);
      ms -= step;
      await client.barrier();
    }
  }

  it('sends a throttled topic at most once per window and the held-back value when the window ends', async () => {
    const client = await RawClient.connect(server().wsUrl, { form: 'v2' });
    const first = await client.joinAndSync({
      topics: [{ topic: 'total/*' }, { topic: 'battery_*/voltage', max_frequency_s: 10 }],
    });
    assert.equal(valuesOf(first)['battery_1/voltage'], 52.1, 'the first data opens the window');

    await advance(client, 1_000);
    await publish(server().registry, { 'total/pv_power': 3000, 'battery_1/voltage': 52.0 });
    assert.deepEqual(valuesOf(await client.next('data')), { 'total/pv_power': 3000 });
    await advance(client, 1_000);
    await publish(server().registry, { 'battery_1/voltage': 51.8 });
    await client.barrier();
    assert.deepEqual(client.pending('data'), [], 'inside the window: held back, no message');

    await advance(client, 8_000); // t = 10 s: the window ends
    assert.deepEqual(
      valuesOf(await client.next('data')),
      { 'battery_1/voltage': 51.8 },
      'the current value, not the first held back',
    );

    await advance(client, 1_000);
    await publish(server().registry, { 'battery_1/voltage': 51.7 });
    await advance(client, 8_000); // t = 19 s: the window opened at 10 s still runs
    assert.deepEqual(client.pending('data'), []);
    await advance(client, 1_000);
    assert.deepEqual(valuesOf(await client.next('data')), { 'battery_1/voltage': 51.7 });

    await advance(client, 30_000); // no change: nothing to send when windows end
    await publish(server().registry, { 'battery_1/voltage': 51.6 });
    assert.deepEqual(
      valuesOf(await client.next('data')),
      { 'battery_1/voltage': 51.6 },
      'a change after a quiet window goes out at once',
    );
    client.close();
  });

  it('applies the smallest max_frequency_s when several entries match a topic', async () => {
    const client = await RawClient.connect(server().wsUrl, { form: 'v1' });
    await client.joinAndSync({
      topics: [
        { topic: 'battery_*/voltage', max_frequency_s: 10 },
        { topic: 'battery_1/*', max_frequency_s: 2 },
        { topic: 'total/pv_power', max_frequency_s: 5 },
        { topic: 'total/*' },
      ],
    });
    await advance(client, 1_000);
    await publish(server().registry, { 'battery_1/voltage': 50, 'total/pv_power': 1 });
    assert.deepEqual(
      valuesOf(await client.next('data')),
      { 'total/pv_power': 1 },
      'total/* without a limit wins for pv_power',
    );
    await advance(client, 1_000); // t = 2 s: the 2-s window of the voltage ends
    assert.deepEqual(valuesOf(await client.next('data')), { 'battery_1/voltage': 50 });
    client.close();
  });

  it('keeps the windows of sockets that joined at different times apart', async () => {
    const early = await RawClient.connect(server().wsUrl, { form: 'v2' });
    await early.joinAndSync({ topics: [{ topic: 'total/pv_power', max_frequency_s: 10 }] });
    await advance(early, 6_000);
    const late = await RawClient.connect(server().wsUrl, { form: 'v2' });
    await late.joinAndSync({ topics: [{ topic: 'total/pv_power', max_frequency_s: 10 }] });

    await publish(server().registry, { 'total/pv_power': 7 }); // t = 6 s
    await advance(early, 4_000); // t = 10 s: only the early socket's window ends
    await late.barrier();
    assert.deepEqual(valuesOf(await early.next('data')), { 'total/pv_power': 7 });
    assert.deepEqual(late.pending('data'), []);
    await advance(late, 6_000); // t = 16 s
    assert.deepEqual(valuesOf(await late.next('data')), { 'total/pv_power': 7 });
    early.close();
    late.close();
  });

  it('drops a held-back value of a topic that is removed, so a redefined topic never ends on the old value', async () => {
    const client = await RawClient.connect(server().wsUrl, { form: 'v2' });
    await client.joinAndSync({ topics: [{ topic: 'battery_2/*', max_frequency_s: 10 }] });
    // A plugin restart (a new config, say) removes its topics and defines them anew.
    const undefine = server().registry.define(meta('battery_2/voltage', { unit: 'V' }), 51);
    await client.next('definition');
    assert.deepEqual(valuesOf(await client.next('data')), { 'battery_2/voltage': 51 }, 'opens the window');
    await publish(server().registry, { 'battery_2/voltage': 50 });
    await client.barrier();
    assert.deepEqual(client.pending('data'), [], 'held back');
    undefine();
    server().registry.define(meta('battery_2/voltage', { unit: 'V' }), 53);
    await client.next('definition');
    assert.deepEqual(valuesOf(await client.next('data')), { 'battery_2/voltage': 53 });
    await advance(client, 20_000);
    assert.deepEqual(client.pending('data'), [], "the removed topic's held-back 50 is not sent after 53");
    client.close();
  });

  it("drops a throttled topic's held-back value when a new filter no longer selects it", async () => {
    const client = await RawClient.connect(server().wsUrl, { form: 'v2' });
    await client.joinAndSync({
      topics: [{ topic: 'total/pv_power', max_frequency_s: 10 }, { topic: 'total/load_power' }],
    });
    await publish(server().registry, { 'total/pv_power': 5 });
    await client.request('metrics', 'topics', { topics: [{ topic: 'total/load_power' }] }, 'j1');
    await advance(client, 20_000);
    assert.deepEqual(client.pending('data'), []);
    client.close();
  });
});
