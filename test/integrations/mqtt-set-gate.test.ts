// The MQTT bridge's gate on `/set`: size limit, a write budget per setting, and a log that
// summarises refusals (one line when a run starts, then one a minute), every line capped.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  capText,
  handleSet,
  LOG_TEXT_LIMIT,
  MAX_SET_BYTES,
  SET_BURST,
  SET_RATE,
  SetGate,
  type SetPath,
} from '@heliograph/plugin-mqtt/dist/src/set-gate.js';

function gate() {
  let now = 1_000_000;
  const lines: string[] = [];
  const g = new SetGate(
    () => now,
    (topic) => topic.startsWith('inverter_1/'),
    (line) => lines.push(line),
  );
  return { g, lines, advance: (ms: number) => (now += ms) };
}

test('20 000 refused writes make two log lines, each capped, with counts by reason', () => {
  const { g, lines, advance } = gate();
  const huge = 'x'.repeat(8 * 1024 * 1024);
  for (let i = 0; i < 20_000; i++) {
    const topic = i % 2 === 0 ? 'inverter_1/output_source_priority' : huge;
    const checked = g.check(topic, i % 2 === 0 ? 8 * 1024 * 1024 : 10);
    if (checked) g.refused(topic, checked.refusal, checked.message);
  }
  assert.equal(lines.length, 1, 'the first refusal is logged at once, the rest wait for the summary');
  advance(60_000);
  const checked = g.check('inverter_1/output_source_priority', 2000)!;
  g.refused('inverter_1/output_source_priority', checked.refusal, checked.message);
  assert.equal(lines.length, 2);
  assert.match(lines[1]!, /^19\d{3} MQTT writes refused \(10000 too large, \d+ rate limit\); the last: /);
  for (const line of lines) assert.ok(line.length < LOG_TEXT_LIMIT + 200, `capped: ${line.length} characters`);
  assert.ok(!lines.join('').includes('x'.repeat(300)), 'no line carries the flooded value or topic in full');
});

test('each setting has its own bucket; topics that are not settings share one', () => {
  const { g, advance } = gate();
  for (let i = 0; i < SET_BURST; i++) assert.equal(g.check('inverter_1/a', 3), null);
  assert.equal(g.check('inverter_1/a', 3)?.refusal, 'rate limit', 'the flooded setting is held back');
  assert.equal(g.check('inverter_1/b', 3), null, 'another setting still writes');
  assert.equal(g.check('inverter_1/a', 3)?.refusal, 'rate limit', "and the flooded one's bucket is kept meanwhile");
  for (let i = 0; i < SET_BURST; i++) assert.equal(g.check(`nope/${i}`, 3), null);
  assert.equal(g.check('nope/other', 3)?.refusal, 'rate limit', 'unknown topics share one bucket');
  advance(1000);
  assert.equal(g.check('inverter_1/a', 3), null, 'one write a second comes back');
});

test('the size limit is the value in bytes: at the limit it goes on, one byte over it is refused without the value', () => {
  const { g } = gate();
  assert.equal(g.check('inverter_1/a', MAX_SET_BYTES), null);
  assert.deepEqual(g.check('inverter_1/b', MAX_SET_BYTES + 1), {
    refusal: 'too large',
    message: `value too large: ${MAX_SET_BYTES + 1} bytes, at most ${MAX_SET_BYTES}`,
  });
});

test('a held-back write is told when to try again, in whole seconds, from how far the bucket is from one write', () => {
  const { g, advance } = gate();
  for (let i = 0; i < SET_BURST; i++) g.check('inverter_1/a', 1);
  assert.deepEqual(g.check('inverter_1/a', 1), {
    refusal: 'rate limit',
    message: `too many writes to this topic: at most ${SET_BURST} at once and ${SET_RATE} per second; try again in 1 s`,
  });
  advance(400);
  assert.match(g.check('inverter_1/a', 1)!.message, /try again in 1 s$/, 'part of a second still says 1 s');
  advance(600);
  assert.equal(g.check('inverter_1/a', 1), null, 'a second after the last write, one more');
  assert.notEqual(g.check('inverter_1/a', 1), null, 'and only one');
  advance(60_000);
  for (let i = 0; i < SET_BURST; i++)
    assert.equal(g.check('inverter_1/a', 1), null, `a long pause refills the burst (${i})`);
  assert.notEqual(g.check('inverter_1/a', 1), null, 'to the burst, never beyond it');
});

test('one refusal is logged as itself; the summary comes a minute after the first line, not before', () => {
  const { g, lines, advance } = gate();
  g.refused('inverter_1/a', 'refused by the service', 'not a setting');
  assert.deepEqual(lines, ['MQTT write refused: inverter_1/a: not a setting']);
  advance(59_999);
  g.refused('inverter_1/a', 'rate limit', 'slow down');
  assert.equal(lines.length, 1, 'within the minute: counted, not logged');
  advance(1);
  g.refused('inverter_1/b', 'too large', 'big');
  assert.deepEqual(lines.slice(1), ['2 MQTT writes refused (1 rate limit, 1 too large); the last: inverter_1/b: big']);
  g.flush();
  assert.equal(lines.length, 2, 'a flush with nothing new logs nothing');
  g.refused('inverter_1/c', 'too large', 'big');
  g.flush();
  assert.deepEqual(lines.slice(2), ['MQTT write refused: inverter_1/c: big'], 'a flush (at stop) logs what is left');
});

test('text is cut at the limit and says how much was cut', () => {
  assert.equal(capText('abc', 3), 'abc');
  assert.equal(capText('abcd', 3), 'abc... (1 more characters)');
  assert.equal(capText('x'.repeat(LOG_TEXT_LIMIT)), 'x'.repeat(LOG_TEXT_LIMIT));
});

test('a gate forgets its buckets rather than grow without end', () => {
  const { g } = gate();
  for (let i = 0; i < SET_BURST; i++) g.check('inverter_1/a', 1);
  assert.notEqual(g.check('inverter_1/a', 1), null);
  for (let i = 0; i < 2000; i++) g.check(`inverter_1/s${i}`, 1);
  assert.equal(g.check('inverter_1/a', 1), null, 'after 2000 other settings the held-back one starts afresh');
});

function path(g: SetGate, write: SetPath['write'] = () => Promise.resolve({ ok: true })) {
  const responses: Array<{ response: Record<string, unknown>; qos: 0 | 1 | undefined }> = [];
  const writes: Array<{ topic: string; value: string }> = [];
  const setPath: SetPath = {
    prefix: 'heliograph',
    gate: g,
    write: (request) => {
      writes.push(request);
      return write(request);
    },
    respond: (response, qos) => {
      responses.push({ response, qos });
      return Promise.resolve();
    },
  };
  return { setPath, responses, writes };
}

test('a /set under the prefix is written and answered with the value, acknowledged', async () => {
  const { g, lines } = gate();
  const { setPath, responses, writes } = path(g);
  await handleSet(setPath, 'heliograph/inverter_1/max_charge_current/set', Buffer.from('60'));
  assert.deepEqual(writes, [{ topic: 'inverter_1/max_charge_current', value: '60' }]);
  assert.deepEqual(responses, [
    { response: { topic: 'inverter_1/max_charge_current', value: '60', ok: true }, qos: undefined },
  ]);
  g.flush();
  assert.deepEqual(lines, [], 'a write taken is no refusal');
});

test('messages that are not a /set under the prefix are left alone', async () => {
  const { g } = gate();
  const { setPath, responses, writes } = path(g);
  for (const topic of [
    'other/inverter_1/a/set',
    'heliograph/inverter_1/a',
    'heliograph/inverter_1/a/set/x',
    'heliographx/a/set',
  ])
    await handleSet(setPath, topic, Buffer.from('1'));
  assert.deepEqual(writes, []);
  assert.deepEqual(responses, []);
});

test('a refusal by the service is answered with its reason, capped, and counted by the gate', async () => {
  const { g, lines } = gate();
  const { setPath, responses } = path(g, () => Promise.resolve({ ok: false, message: 'm'.repeat(500) }));
  await handleSet(setPath, 'heliograph/inverter_1/a/set', Buffer.from('7'));
  assert.deepEqual(responses, [
    { response: { topic: 'inverter_1/a', value: '7', ok: false, message: capText('m'.repeat(500)) }, qos: undefined },
  ]);
  assert.equal(lines.length, 1);
  assert.match(lines[0]!, /^MQTT write refused: inverter_1\/a: m+\.\.\. \(\d+ more characters\)$/);
  await handleSet(setPath, 'heliograph/inverter_1/a/set', Buffer.from('8'));
  g.flush();
  assert.match(lines[1]!, /^MQTT write refused: inverter_1\/a: m+/, 'the next one waits for the summary');
  await handleSet(setPath, 'heliograph/inverter_1/a/set', Buffer.from('9'));
  await handleSet(setPath, 'heliograph/inverter_1/b/set', Buffer.from('9'));
  g.flush();
  assert.match(lines[2]!, /^2 MQTT writes refused \(2 refused by the service\); the last: inverter_1\/b: /);
});

test('a gated write never reaches the service and is answered at QoS 0 without its value', async () => {
  const { g, lines } = gate();
  const { setPath, responses, writes } = path(g);
  await handleSet(setPath, 'heliograph/inverter_1/a/set', Buffer.alloc(MAX_SET_BYTES + 1, 'v'));
  assert.deepEqual(writes, []);
  assert.deepEqual(responses, [
    {
      response: {
        topic: 'inverter_1/a',
        ok: false,
        message: `value too large: ${MAX_SET_BYTES + 1} bytes, at most ${MAX_SET_BYTES}`,
      },
      qos: 0,
    },
  ]);
  assert.match(lines[0]!, /^MQTT write refused: inverter_1\/a: value too large/);
});
