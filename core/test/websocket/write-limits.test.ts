// A burst of refused writes must not stall the service. Writes are rate limited
// per client (set_result error on the stream), the audit keeps length-capped topics, and its
// entries reach the database in batches.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AUDIT_TEXT_LIMIT } from '../../src/writes/audit.js';
import { WRITE_BURST, WRITE_RATE } from '../../src/writes/rate-limit.js';
import { useStream } from './harness.js';
import { RawClient } from './raw-client.js';

describe('write limits', { timeout: 30_000 }, () => {
  const server = useStream({ each: true });

  it('a burst of set frames for unknown 30 KB topics: the first are refused as unknown, the rest by the rate limit', async () => {
    const client = await RawClient.connect(server().wsUrl);
    await client.joinAndSync({ topics: [{ topic: 'inverter_1/*' }] });
    const burst = 200;
    for (let i = 0; i < burst; i++)
      client.send('metrics', 'set', { topic: `nope/${i}_${'x'.repeat(30_000)}`, value: '1' });
    const results = [];
    for (let i = 0; i < burst; i++) results.push((await client.next('set_result')).payload);
    const unknown = results.filter((r) => /^unknown topic/.test(r.message));
    const limited = results.filter((r) => /^too many writes from admin/.test(r.message));
    assert.equal(unknown.length, WRITE_BURST);
    assert.equal(limited.length, burst - WRITE_BURST);
    assert.ok(
      unknown.every((r) => r.message.length < 400),
      'the refusal does not echo 30 KB back',
    );
    assert.ok(
      results.every((r) => r.topic.length < 400 && r.topic.startsWith('nope/')),
      'nor does the echoed topic',
    );

    const rows = await server().audit.list(1000);
    assert.equal(rows.length, WRITE_BURST, 'refusals by the limit are not audited one by one');
    for (const row of rows)
      assert.ok(
        String(row.topic).length <= AUDIT_TEXT_LIMIT + 40,
        `topic cut to the limit (${String(row.topic).length})`,
      );
    assert.match(String(rows[0]!.topic), /\.\.\. \(\d+ more characters\)$/);

    // A second later the bucket holds WRITE_RATE writes again; a real write goes through.
    server().clock.advance(1000);
    client.send('metrics', 'set', { topic: 'inverter_1/output_source_priority', value: 'SBU' });
    assert.deepEqual((await client.next('set_result')).payload, {
      topic: 'inverter_1/output_source_priority',
      result: 'ok',
    });
    for (let i = 1; i < WRITE_RATE; i++)
      client.send('metrics', 'set', { topic: 'inverter_1/output_source_priority', value: 'SBU' });
    for (let i = 1; i < WRITE_RATE; i++) assert.equal((await client.next('set_result')).payload.result, 'ok');
    client.send('metrics', 'set', { topic: 'inverter_1/output_source_priority', value: 'SBU' });
    assert.match((await client.next('set_result')).payload.message, /try again in 1 s/);
    client.close();
  });

  it('another client is not held back by one that is limited', async () => {
    const flood = await RawClient.connect(server().wsUrl);
    await flood.joinAndSync({});
    for (let i = 0; i < WRITE_BURST + 5; i++) flood.send('metrics', 'set', { topic: 'nope/x', value: '1' });
    for (let i = 0; i < WRITE_BURST + 5; i++) await flood.next('set_result');
    const outcome = await server().writes.write({
      topic: 'inverter_1/output_source_priority',
      value: 'SBU',
      who: 'home-assistant',
      via: 'rest',
    });
    assert.deepEqual(outcome, { ok: true });
    flood.close();
  });
});
