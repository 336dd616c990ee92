import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileGlob } from '../../src/topics/glob.js';

test('globs: * spans any run including /, ? one character, the rest literal', () => {
  const cases: Array<[string, string, boolean]> = [
    ['total/*', 'total/pv_power', true],
    ['total/*', 'total/', true],
    ['total/*', 'totals/pv', false],
    ['*', '', true],
    ['*', 'a/b/c', true],
    ['battery_*/voltage', 'battery_1/voltage', true],
    ['battery_*/voltage', 'battery_1/cell/voltage', true],
    ['battery_?/voltage', 'battery_12/voltage', false],
    ['battery_??/voltage', 'battery_12/voltage', true],
    ['a.b', 'axb', false],
    ['a.b', 'a.b', true],
    ['(x)+[y]', '(x)+[y]', true],
    ['*a*b*c', 'xxaxxbxxc', true],
    ['*a*b*c', 'xxaxxbxxcx', false],
    ['a**b', 'ab', true],
    ['a***?', 'a', false],
    ['a***?', 'ab', true],
    ['a*a', 'a', false],
    ['a*a', 'aa', true],
    ['?', '', false],
    ['x*y?z', 'xyyz', true],
    ['x*y?z', 'xyz', false],
  ];
  for (const [glob, topic, expected] of cases) {
    assert.equal(compileGlob(glob).test(topic), expected, `${glob} vs ${topic}`);
  }
});

test('a pathological glob over 10 000 topics answers, and correctly', () => {
  // As a backtracking RegExp this pattern takes exponential time on a topic not ending in X.
  const matcher = compileGlob('*'.repeat(12) + 'X');
  const stars = compileGlob('*a'.repeat(40) + 'X');
  const topics = Array.from({ length: 10_000 }, (_, i) => `inverter_${i}/${'a'.repeat(60)}`);
  topics.push('inverter_x/endsX');
  assert.deepEqual(
    topics.filter((t) => matcher.test(t)),
    ['inverter_x/endsX'],
  );
  assert.deepEqual(
    topics.filter((t) => stars.test(t)),
    [],
  );
});
