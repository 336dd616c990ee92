/// <reference types="node" />
// A plugin's grants as the owner reads them in the Permissions box, and the count on its card.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { approvedCount, grantItems } from '../forms/grants-choice.js';

test('each requested grant is one sentence, in the order the manifest lists the kinds', () => {
  const requested = {
    hosts: ['api.acme.example', '*.acme.example', '*'],
    forecast: true,
    writes: ['battery_1/battery_control_*', '*'],
    prices: true,
  };
  assert.deepEqual(
    grantItems(requested).map((item) => item.text),
    [
      'Change settings of battery_1/battery_control_*',
      'Change settings of any device',
      'Publish grid prices',
      'Publish the PV forecast',
      'Reach api.acme.example',
      'Reach any host under acme.example',
      'Reach any host on the network',
    ],
  );
  assert.deepEqual(grantItems({}), []);
  assert.deepEqual(grantItems(undefined), [], 'a server from before grants were listed');
});

test('the count says how many of the requested grants are approved, each list item on its own', () => {
  const requested = { writes: ['a/b', 'c/*'], prices: true, hosts: ['x.example'] };
  assert.equal(approvedCount(requested, {}), '0 of 4 approved');
  assert.equal(approvedCount(requested, { writes: ['c/*'], prices: true }), '2 of 4 approved');
  assert.equal(approvedCount(requested, requested), '4 of 4 approved');
  assert.equal(
    approvedCount(requested, { forecast: true, hosts: ['y.example'] }),
    '0 of 4 approved',
    'only what it asks',
  );
});
