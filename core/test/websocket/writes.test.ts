import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { Socket } from 'phoenix';
import { startStream, TOKEN, type StreamServer } from './harness.js';
import { ChannelInbox, joinChannel, phoenixSocket, pushAndWait } from './phoenix-client.js';
import { RawClient, valuesOf } from './raw-client.js';

describe('WebSocket writes: set and set_result', { timeout: 10_000 }, () => {
  let server: StreamServer;
  let socket: Socket | undefined;
  beforeEach(async () => (server = await startStream()));
  afterEach(async () => {
    socket?.disconnect();
    socket = undefined;
    await server.stop();
  });

  it('writes through the Phoenix client: ok reply, set_result ok, the new value in data, an audit row', async () => {
    socket = phoenixSocket(server);
    const channel = socket.channel('metrics', { topics: [{ topic: 'inverter_1/*' }] });
    const inbox = new ChannelInbox(channel, ['data', 'set_result']);
    assert.equal((await joinChannel(channel)).status, 'ok');
    await inbox.next('data');

    const ack = await pushAndWait(
      channel.push('set', { topic: 'inverter_1/output_source_priority', value: 'utility first' }),
    );
    assert.deepEqual(ack, { status: 'ok', response: {} });
    assert.deepEqual(await inbox.next('set_result'), { topic: 'inverter_1/output_source_priority', result: 'ok' });
    assert.deepEqual(server.written, ['Utility first']);
    assert.deepEqual(await inbox.next('data'), {
      metrics: [{ topic: 'inverter_1/output_source_priority', value: 'Utility first' }],
    });

    const [row] = await server.audit.list(1);
    assert.deepEqual(
      {
        who: row!.who,
        via: row!.via,
        topic: row!.topic,
        old_value: row!.old_value,
        new_value: row!.new_value,
        result: row!.result,
        message: row!.message,
      },
      {
        who: 'admin',
        via: 'ws',
        topic: 'inverter_1/output_source_priority',
        old_value: 'Solar first',
        new_value: 'utility first',
        result: 'ok',
        message: null,
      },
    );
  });

  it('reports a refused value with a message that lists what is allowed, and audits it', async () => {
    socket = phoenixSocket(server);
    const channel = socket.channel('metrics', {});
    const inbox = new ChannelInbox(channel, ['set_result']);
    await joinChannel(channel);
    assert.equal(
      (await pushAndWait(channel.push('set', { topic: 'inverter_1/output_source_priority', value: 'Battery first' })))
        .status,
      'ok',
    );
    const result = await inbox.next('set_result');
    assert.deepEqual(result, {
      topic: 'inverter_1/output_source_priority',
      result: 'error',
      message: 'value "Battery first" is not allowed; allowed values: "Solar first", "Utility first", "SBU"',
    });
    assert.deepEqual(server.written, []);
    const [row] = await server.audit.list(1);
    assert.equal(row!.result, 'error');
    assert.equal(row!.via, 'ws');
    assert.equal(row!.message, result.message);
  });

  it('sends set_result to the sender alone, with the reason of a refusal by the device or a read-only topic', async () => {
    const writer = await RawClient.connect(server.wsUrl, { form: 'v1', query: { token: TOKEN } });
    const watcher = await RawClient.connect(server.wsUrl, { form: 'v2' });
    await writer.joinAndSync({ topics: [{ topic: 'inverter_1/*' }] });
    await watcher.joinAndSync({ topics: [{ topic: 'inverter_1/*' }] });

    const ack = await writer.request('metrics', 'set', { topic: 'inverter_1/max_charge_current', value: 100 });
    assert.deepEqual(ack.raw, {
      topic: 'metrics',
      event: 'phx_reply',
      payload: { status: 'ok', response: {} },
      ref: '2',
    });
    const refused = await writer.next('set_result');
    assert.deepEqual(refused.raw, {
      topic: 'metrics',
      event: 'set_result',
      payload: { topic: 'inverter_1/max_charge_current', result: 'error', message: 'the device refused: device busy' },
      ref: null,
    });

    await writer.request('metrics', 'set', { topic: 'inverter_1/pv_power', value: '10' });
    assert.deepEqual((await writer.next('set_result')).payload, {
      topic: 'inverter_1/pv_power',
      result: 'error',
      message: 'inverter_1/pv_power is not writable',
    });
    await writer.request('metrics', 'set', { topic: 'inverter_1/max_charge_current', value: '60' });
    assert.deepEqual((await writer.next('set_result')).payload, {
      topic: 'inverter_1/max_charge_current',
      result: 'ok',
    });
    assert.deepEqual(valuesOf(await watcher.next('data')), { 'inverter_1/max_charge_current': 60 });
    await watcher.barrier();
    assert.deepEqual(watcher.pending('set_result'), [], 'only the sender learns the result');

    const rows = await server.audit.list(10);
    assert.deepEqual(
      rows.map((r) => [r.who, r.topic, r.new_value, r.result]),
      [
        ['kitchen panel', 'inverter_1/max_charge_current', '60', 'ok'],
        ['kitchen panel', 'inverter_1/pv_power', '10', 'error'],
        ['kitchen panel', 'inverter_1/max_charge_current', '100', 'error'],
      ],
    );
    writer.close();
    watcher.close();
  });

  it('answers a malformed set with an error reply, without a write or a set_result', async () => {
    const client = await RawClient.connect(server.wsUrl, { form: 'v2' });
    await client.joinAndSync();
    const missing = await client.request('metrics', 'set', { topic: 'inverter_1/output_source_priority' }, 'j1');
    assert.deepEqual(missing.payload, {
      status: 'error',
      response: { reason: 'value is required and must be a string' },
    });
    const noTopic = await client.request('metrics', 'set', { value: 'SBU' }, 'j1');
    assert.deepEqual(noTopic.payload, {
      status: 'error',
      response: { reason: 'topic is required and must be a string' },
    });
    await client.barrier();
    assert.deepEqual(client.pending('set_result'), []);
    assert.deepEqual(await server.audit.list(10), []);
    client.close();
  });
});
