// The MQTT bridge's gate on `/set`: size limit, a write budget per setting, and a log that
// summarises refusals (one line when a run starts, then one a minute), every line capped.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LOG_TEXT_LIMIT, SET_BURST, SetGate } from '@heliograph/plugin-mqtt/dist/src/set-gate.js';

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
  for (let i = 0; i < SET_BURST; i++) assert.equal(g.check(`nope/${i}`, 3), null);
  assert.equal(g.check('nope/other', 3)?.refusal, 'rate limit', 'unknown topics share one bucket');
  advance(1000);
  assert.equal(g.check('inverter_1/a', 3), null, 'one write a second comes back');
});
