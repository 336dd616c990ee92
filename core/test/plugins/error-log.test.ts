import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Logger } from '../../src/log.js';
import { ErrorLog } from '../../src/plugins/host/error-log.js';

/** A logger that keeps its error lines. */
function collecting(): { log: Logger; lines: string[] } {
  const lines: string[] = [];
  const ignore = () => undefined;
  return { lines, log: { debug: ignore, info: ignore, warn: ignore, error: (message) => lines.push(message) } };
}

test('an outage logs its error once, then one summary with the count when it ends', () => {
  const { log, lines } = collecting();
  let now = 0;
  const errors = new ErrorLog(log, () => now);
  for (let poll = 0; poll < 20; poll++, now += 5000) errors.report('deye', 'inverter_1: no answer within 1500 ms');
  assert.deepEqual(lines, ['deye: inverter_1: no answer within 1500 ms']);
  errors.cleared('deye');
  assert.deepEqual(lines.slice(1), ['deye: inverter_1: no answer within 1500 ms (repeated 19 times)']);
  errors.cleared('deye');
  assert.equal(lines.length, 2, 'a second recovery adds nothing');
});

test('a long outage adds a summary every ten minutes; a different error closes the run', () => {
  const { log, lines } = collecting();
  let now = 0;
  const errors = new ErrorLog(log, () => now);
  for (; now <= 10 * 60_000; now += 60_000) errors.report('mqtt', 'broker down');
  assert.deepEqual(lines, ['mqtt: broker down', 'mqtt: broker down (repeated 10 times)']);
  errors.report('mqtt', 'broker down');
  errors.report('mqtt', 'TLS certificate expired');
  assert.deepEqual(lines.slice(2), ['mqtt: broker down (repeated 1 time)', 'mqtt: TLS certificate expired']);
  errors.report('other', 'broker down');
  assert.equal(lines.at(-1), 'other: broker down', 'instances are counted apart');
});
