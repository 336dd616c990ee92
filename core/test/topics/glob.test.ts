import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { compileGlob, isGlob, matchGlob } from '../../src/topics/glob.js';

/** The definition the matcher must agree with: `*` is `.*` (including `/`), `?` is `.`, the rest literal. */
function reference(glob: string): RegExp {
  const source = [...glob].map((ch) =>
    ch === '*' ? '.*' : ch === '?' ? '.' : ch.replace(/[.+^${}()|[\]\\]/g, '\\$&'),
  );
  return new RegExp(`^${source.join('')}$`, 's');
}

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

test('globs agree with the regular expression they stand for, with and without the literal prefilter', () => {
  // A small alphabet makes near misses common: patterns whose head, tail and length fit a
  // topic while a literal in the middle does not.
  const text = fc.string({ unit: fc.constantFrom('a', 'b', '/', '_'), maxLength: 12 });
  const glob = fc.string({ unit: fc.constantFrom('a', 'b', '/', '_', '*', '?'), maxLength: 8 });
  fc.assert(
    fc.property(glob, text, (pattern, topic) => {
      const expected = reference(pattern).test(topic);
      assert.equal(compileGlob(pattern).test(topic), expected, `compileGlob(${pattern}) on ${topic}`);
      // matchGlob takes collapsed `*` runs; checked alone so the prefilter cannot hide its mistakes.
      assert.equal(matchGlob(pattern.replace(/\*{2,}/g, '*'), topic), expected, `matchGlob(${pattern}) on ${topic}`);
    }),
    { numRuns: 5_000, seed: 20261125 },
  );
});

test('a middle literal must match even when head, tail and length fit', () => {
  for (const [pattern, topic] of [
    ['*/pv_*', 'inverter_1/grid_power'],
    ['a*b*c', 'aXc'],
    ['a?c', 'abd'],
    ['x*mid*y', 'x_mad_y'],
  ] as const) {
    assert.equal(compileGlob(pattern).test(topic), false, `${pattern} must not match ${topic}`);
    assert.equal(matchGlob(pattern, topic), false, `matchGlob: ${pattern} must not match ${topic}`);
  }
  assert.equal(compileGlob('*/pv_*').test('inverter_1/pv_power'), true);
});

test('isGlob: a topic with * or ? is a pattern, anything else a plain topic', () => {
  assert.equal(isGlob('total/*'), true);
  assert.equal(isGlob('battery_?/power'), true);
  assert.equal(isGlob('inverter_1/pv_power'), false);
  assert.equal(isGlob(''), false);
  assert.equal(compileGlob('inverter_1/pv_power').test('inverter_1/pv_power'), true, 'a plain topic matches itself');
  assert.equal(compileGlob('inverter_1/pv_power').test('inverter_1/pv_powerX'), false, 'and nothing else');
});
