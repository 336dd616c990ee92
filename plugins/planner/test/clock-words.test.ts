// The plan's times in words by a zone's offsets (what the solver's own process uses, without
// ICU) are the same words as Intl's, across daylight saving changes and in zones whose offsets
// are not whole hours; outside the offsets' span they fall back to Intl.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { clockTime, loadSolver, makePlan, zoneOffsets } from '../src/planning.js';
import { nightAndEvening, PARAMS } from './fixtures.js';

const QUARTER = 15 * 60_000;
const HOUR = 3_600_000;

/** Each zone with a day its offset changes on (or none), 2026. */
const ZONES: Array<[string, number]> = [
  ['Europe/Berlin', Date.UTC(2026, 2, 29)],
  ['Europe/Berlin', Date.UTC(2026, 9, 25)],
  ['America/New_York', Date.UTC(2026, 2, 8)],
  ['Australia/Lord_Howe', Date.UTC(2026, 3, 5)], // half an hour back
  ['America/St_Johns', Date.UTC(2026, 10, 1)], // UTC-02:30 -> -03:30
  ['Asia/Kathmandu', Date.UTC(2026, 5, 1)], // UTC+05:45, no change
  ['UTC', Date.UTC(2026, 5, 1)],
];

test('the words by offsets are Intl words, every quarter hour over a change and beyond the span', () => {
  for (const [zone, day] of ZONES) {
    const from = day - 30 * HOUR;
    const offsets = zoneOffsets(zone, from, day + 30 * HOUR);
    for (const ref of [from, day, day + 20 * HOUR])
      for (let t = day - 40 * HOUR; t < day + 40 * HOUR; t += QUARTER)
        assert.equal(clockTime(t, ref, offsets), clockTime(t, ref, zone), `${zone} ${new Date(t).toISOString()}`);
  }
});

test("the offsets are the zone's, each change where it happens", () => {
  assert.deepEqual(zoneOffsets('Europe/Berlin', Date.UTC(2026, 2, 28, 12), Date.UTC(2026, 2, 29, 12)).changes, [
    { at: Date.UTC(2026, 2, 28, 12), offsetMs: HOUR },
    { at: Date.UTC(2026, 2, 29, 1), offsetMs: 2 * HOUR },
  ]);
  assert.deepEqual(zoneOffsets('Asia/Kathmandu', Date.UTC(2026, 5, 1, 0, 7), Date.UTC(2026, 5, 2)).changes, [
    { at: Date.UTC(2026, 5, 1), offsetMs: (5 * 60 + 45) * 60_000 },
  ]);
});

test('a plan worded by the offsets says what it says by Intl', async () => {
  const highs = await loadSolver();
  const start = Date.UTC(2026, 2, 28, 12); // Berlin's clocks go forward in the night that follows
  const loadW = new Map<number, number>();
  for (let t = start; t < start + 36 * HOUR; t += QUARTER) loadW.set(t, 1500);
  const request = (describe: Parameters<typeof makePlan>[1]['describe']) =>
    makePlan(highs, {
      now: start,
      params: PARAMS,
      prices: nightAndEvening(start),
      pvW: new Map(),
      loadW,
      defaultLoadW: 1500,
      socPercent: 20,
      exportPrice: 0,
      describe,
    });
  const byIntl = request({ currency: 'EUR', timeZone: 'Europe/Berlin' });
  const byOffsets = request({
    currency: 'EUR',
    timeZone: 'Europe/Berlin',
    offsets: zoneOffsets('Europe/Berlin', start, start + 49 * HOUR),
  });
  const reasons = (plan: typeof byIntl) => plan.actions.map((a) => a.reason);
  assert.ok(
    reasons(byIntl).some((r) => / at (\w{3} )?\d\d:\d\d/.test(r)),
    'the plan names a time',
  );
  assert.deepEqual(reasons(byOffsets), reasons(byIntl));
});

test('within their span the words follow the offsets, outside it Intl', () => {
  // Offsets that put UTC an hour ahead, from 12:00 to 13:00 UTC on Wednesday 10 June 2026.
  const from = Date.UTC(2026, 5, 10, 12);
  const ahead = { timeZone: 'UTC', from, until: from + HOUR, changes: [{ at: from, offsetMs: HOUR }] };
  assert.equal(clockTime(from, from, ahead), '13:00');
  assert.equal(clockTime(from + HOUR - 1, from, ahead), '13:59');
  assert.equal(clockTime(from - 1, from, ahead), '11:59', 'before the span');
  assert.equal(clockTime(from + HOUR, from, ahead), '13:00', 'its end is past the span');
  assert.equal(clockTime(from, from - 24 * HOUR, ahead), 'Wed 12:00', 'a reference outside the span: Intl for both');

  // Every day of a week by the offsets, named from the Saturday before it.
  const saturday = Date.UTC(2026, 5, 13);
  const week = {
    timeZone: 'UTC',
    from: saturday,
    until: saturday + 8 * 24 * HOUR,
    changes: [{ at: saturday, offsetMs: 0 }],
  };
  assert.deepEqual(
    [1, 2, 3, 4, 5, 6, 7].map((d) => clockTime(saturday + d * 24 * HOUR + 9 * HOUR, saturday, week)),
    ['Sun 09:00', 'Mon 09:00', 'Tue 09:00', 'Wed 09:00', 'Thu 09:00', 'Fri 09:00', 'Sat 09:00'],
  );
});

test('a span that starts or ends on a change', () => {
  const change = Date.UTC(2026, 2, 29, 1); // Berlin to summer time
  assert.deepEqual(zoneOffsets('Europe/Berlin', change, change + HOUR).changes, [{ at: change, offsetMs: 2 * HOUR }]);
  assert.deepEqual(zoneOffsets('Europe/Berlin', change - HOUR, change).changes, [
    { at: change - HOUR, offsetMs: HOUR },
  ]);
});
