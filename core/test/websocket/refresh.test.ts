// A quiet site still streams: values not sent for the refresh interval (12 s) go out again,
// one payload per filter, so a client that takes 30 s without a data frame for a dead
// socket (the Homey app) keeps its connection through a night of unchanged values.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { publish, useStream } from './harness.js';
import { RawClient, valuesOf } from './raw-client.js';

describe('WebSocket refresh of values that hold still', { timeout: 10_000 }, () => {
  const server = useStream({ each: true, overrides: { refreshMs: 12_000 } });

  it('re-sends values not sent for 12 s, and only those, within 15 s, like a client counting 30 s sees', async () => {
    const client = await RawClient.connect(server().wsUrl, { form: 'v2' });
    await client.joinAndSync({ topics: [{ topic: 'total/*' }, { topic: 'battery_1/voltage' }] });
    await client.next('system');
    // 6 s in, one value changes: it was sent then, the others at the join.
    server().timers.advance(6_000);
    await publish(server().registry, { 'total/pv_power': 3300 });
    assert.deepEqual(valuesOf(await client.next('data')), { 'total/pv_power': 3300 });
    server().timers.advance(9_000); // 15 s after the join
    const refreshed = valuesOf(await client.next('data'));
    assert.ok(!('total/pv_power' in refreshed), 'a value sent 9 s ago is not sent again yet');
    assert.equal(refreshed['battery_1/voltage'], 52.1, 'the value that held still for 15 s is sent again');
    server().timers.advance(6_000); // 21 s: pv_power was sent 15 s ago
    assert.deepEqual(valuesOf(await client.next('data')), { 'total/pv_power': 3300 });
    await client.barrier();
    assert.deepEqual(client.pending('data'), [], 'nothing else was due');
    // Over a quiet minute every value goes out at least every 15 s.
    const gaps: number[] = [];
    let last = server().clock.now();
    for (let i = 0; i < 20; i++) {
      server().timers.advance(3_000);
      await client.barrier(); // every frame sent so far has arrived
      const arrived = client.pending('data').length;
      for (let k = 0; k < arrived; k++) await client.next('data');
      if (arrived === 0) continue;
      gaps.push(server().clock.now() - last);
      last = server().clock.now();
    }
    assert.ok(gaps.length >= 4, `data frames in a quiet minute: ${gaps.length}`);
    assert.ok(Math.max(...gaps) <= 15_000, `longest gap ${Math.max(...gaps)} ms`);
    client.close();
  });

  it('sockets with the same filter share one refresh payload', async () => {
    const a = await RawClient.connect(server().wsUrl, { form: 'v2' });
    const b = await RawClient.connect(server().wsUrl, { form: 'v2' });
    for (const c of [a, b]) await c.joinAndSync({ topics: [{ topic: 'battery_1/voltage' }] });
    server().timers.advance(15_000);
    const [fa, fb] = [await a.next('data'), await b.next('data')];
    assert.deepEqual(fa.raw, fb.raw);
    assert.deepEqual(valuesOf(fa), { 'battery_1/voltage': 52.1 });
    a.close();
    b.close();
  });
});
