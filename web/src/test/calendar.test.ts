/// <reference types="node" />
// The page's calendar in the site's zone, whatever zone the test machine is in.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { addPeriods, alignedStep, bucketsOf, fromIsoDate, isoDate, periodStart, zonedInstant } from '../state/zone.js';

const BERLIN = 'Europe/Berlin';

test('a day starts at local midnight in the site zone, not the browser zone or UTC', () => {
  const at = Date.parse('2026-11-25T23:30:00Z'); // already the 26th in Berlin, still the 25th in New York
  assert.equal(new Date(periodStart(BERLIN, at, 'day')).toISOString(), '2026-11-25T23:00:00.000Z');
  assert.equal(new Date(periodStart('America/New_York', at, 'day')).toISOString(), '2026-11-25T05:00:00.000Z');
  assert.equal(isoDate(BERLIN, at), '2026-11-26');
  assert.equal(isoDate('UTC', at), '2026-11-25');
});

test('weeks start on Monday, months on the 1st, years on 1 January, at local midnight', () => {
  const at = Date.parse('2026-11-25T12:00:00Z'); // a Wednesday
  assert.equal(new Date(periodStart(BERLIN, at, 'week')).toISOString(), '2026-11-22T23:00:00.000Z');
  assert.equal(new Date(periodStart(BERLIN, at, 'month')).toISOString(), '2026-10-31T23:00:00.000Z');
  assert.equal(new Date(periodStart(BERLIN, at, 'year')).toISOString(), '2025-12-31T23:00:00.000Z');
  const month = periodStart(BERLIN, at, 'month');
  assert.equal(new Date(addPeriods(BERLIN, month, 'month', 1)).toISOString(), '2026-11-30T23:00:00.000Z');
  assert.equal(bucketsOf(BERLIN, month, 'month').length, 30);
  assert.equal(bucketsOf(BERLIN, periodStart(BERLIN, at, 'year'), 'year').length, 12);
  assert.equal(bucketsOf(BERLIN, periodStart(BERLIN, at, 'week'), 'week').length, 7);
});

test('the days the clocks change have 23 and 25 hourly buckets', () => {
  const spring = zonedInstant(BERLIN, 2026, 3, 29);
  const autumn = zonedInstant(BERLIN, 2026, 10, 25);
  assert.equal(bucketsOf(BERLIN, spring, 'day').length, 23);
  assert.equal(bucketsOf(BERLIN, autumn, 'day').length, 25);
  assert.equal(bucketsOf(BERLIN, zonedInstant(BERLIN, 2026, 3, 30), 'day').length, 24);
  // A week across the change still has seven days, each starting at local midnight.
  const week = bucketsOf(BERLIN, periodStart(BERLIN, spring, 'week'), 'week');
  assert.deepEqual(
    week.map((t) => isoDate(BERLIN, t)),
    ['2026-03-23', '2026-03-24', '2026-03-25', '2026-03-26', '2026-03-27', '2026-03-28', '2026-03-29'],
  );
  assert.equal(new Date(week[6]!).toISOString(), '2026-03-28T23:00:00.000Z');
});

test('a date typed in the date field is that local day', () => {
  const start = fromIsoDate('Pacific/Auckland', '2026-07-01');
  assert.equal(new Date(start!).toISOString(), '2026-06-30T12:00:00.000Z');
  assert.equal(isoDate('Pacific/Auckland', start!), '2026-07-01');
  assert.equal(fromIsoDate(BERLIN, '1 July'), null);
});

test('history buckets align to local hours: 1h in whole-hour zones, 15m in India or Nepal', () => {
  const from = Date.parse('2026-01-01T00:00:00Z');
  const to = Date.parse('2026-02-01T00:00:00Z');
  assert.equal(alignedStep(BERLIN, from, to).text, '1h');
  assert.equal(alignedStep('Asia/Kolkata', from, to).text, '15m');
  assert.equal(alignedStep('Asia/Kathmandu', from, to).text, '15m');
});
