import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { Socket } from 'phoenix';
import { within } from '../helpers/deadline.js';
import { publish, startStream, type StreamServer } from './harness.js';
import { ChannelInbox, joinChannel, phoenixSocket, pushAndWait } from './phoenix-client.js';

describe('WebSocket with the official Phoenix client (vsn 2.0.0)', { timeout: 10_000 }, () => {
  let server: StreamServer;
  let socket: Socket;
  beforeEach(async () => {
    server = await startStream();
    socket = phoenixSocket(server);
  });
  afterEach(async () => {
    socket.disconnect();
    await server.stop();
  });

  it('joins metrics with a filter and gets definitions, values, system rows and heartbeat replies', async () => {
    const channel = socket.channel('metrics', {
      topics: [{ topic: 'total/*' }, { topic: 'battery_*/voltage', max_frequency_s: 10 }],
    });
    const inbox = new ChannelInbox(channel, ['definition', 'data', 'system']);
    assert.deepEqual(await joinChannel(channel), { status: 'ok', response: {} });
    const definition = await inbox.next('definition');
    assert.deepEqual(
      definition.definitions.map((d: { topic: string }) => d.topic),
      ['battery_1/voltage', 'total/grid_power', 'total/load_power', 'total/pv_power'],
    );
    assert.deepEqual(await inbox.next('data'), {
      metrics: [
        { topic: 'battery_1/voltage', value: 52.1 },
        { topic: 'total/grid_power', value: -2300 },
        { topic: 'total/load_power', value: 900 },
        { topic: 'total/pv_power', value: 3200 },
      ],
    });
    assert.equal((await inbox.next('system')).metrics[1]!.topic, 'system/software_version');

    await publish(server.registry, { 'total/load_power': 1200, 'inverter_1/pv_power': 10 });
    assert.deepEqual(await inbox.next('data'), { metrics: [{ topic: 'total/load_power', value: 1200 }] });

    const latency = await within(
      new Promise<number>((resolve) => socket.ping(resolve)),
      'the answer to a WebSocket ping',
    );
    assert.ok(latency >= 0);
  });

  it('replaces the filter with the topics event', async () => {
    const channel = socket.channel('metrics', {});
    const inbox = new ChannelInbox(channel, ['definition', 'data']);
    await joinChannel(channel);
    await inbox.next('definition');
    await inbox.next('data');
    const reply = await pushAndWait(channel.push('topics', { topics: [{ topic: 'weather/*' }] }));
    assert.deepEqual(reply, { status: 'ok', response: {} });
    assert.deepEqual(
      (await inbox.next('definition')).definitions.map((d: { topic: string }) => d.topic),
      ['weather/cloud_cover'],
    );
    assert.deepEqual(await inbox.next('data'), { metrics: [{ topic: 'weather/cloud_cover', value: 40 }] });
    const refused = await pushAndWait<{ reason: string }>(channel.push('topics', { topics: [] }));
    assert.equal(refused.status, 'error');
    assert.match(refused.response.reason, /topics must not be empty/);
  });

  it('refuses a channel other than metrics with "unmatched topic"', async () => {
    const channel = socket.channel('rooms:lobby', {});
    assert.deepEqual(await joinChannel(channel), { status: 'error', response: { reason: 'unmatched topic' } });
    channel.leave();
  });

  it('reconnects and rejoins after a server restart, and receives values again', async () => {
    let opened = 0;
    socket.onOpen(() => {
      opened++;
    });
    const channel = socket.channel('metrics', { topics: [{ topic: 'total/pv_power' }] });
    const inbox = new ChannelInbox(channel, ['definition', 'data']);
    await joinChannel(channel);
    await inbox.next('definition');
    await inbox.next('data');

    await server.restart();
    await publish(server.registry, { 'total/pv_power': 4100 }); // while the client is away
    const again = await inbox.next('definition');
    assert.deepEqual(
      again.definitions.map((d: { topic: string }) => d.topic),
      ['total/pv_power'],
    );
    assert.deepEqual(
      await inbox.next('data'),
      { metrics: [{ topic: 'total/pv_power', value: 4100 }] },
      'the rejoin brings the current value',
    );
    assert.equal(opened, 2);

    await publish(server.registry, { 'total/pv_power': 4200 });
    assert.deepEqual(await inbox.next('data'), { metrics: [{ topic: 'total/pv_power', value: 4200 }] });
  });
});
