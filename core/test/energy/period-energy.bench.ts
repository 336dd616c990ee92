// node core/dist/test/energy/period-energy.bench.js: a year of the six `total/*_energy`
// counters, one reading every 10 s (daily resets at Berlin's midnight), in a fresh store; then
// the ms of GET /api/v1/energy's computation for a year of days, a year of months and a
// month of hours (median of 7 runs each). Not a test: it prints figures, asserts nothing.
import { join } from 'node:path';
import { ManualClock } from '../../src/clock.js';
import { migrate, openDatabase } from '../../src/db.js';
import { periodBounds } from '../../src/energy/kwh-totals.js';
import { PERIOD_COUNTERS, PeriodEnergy } from '../../src/energy/period-energy.js';
import { priceMigrations } from '../../src/grid/price-history.js';
import { HistoryStore } from '../../src/history/store.js';
import { tempDir } from '../helpers/tmp.js';
import { topicMeta } from '../helpers/topics.js';

const STEP = 10_000;
const DAY = 86_400_000;
const FROM = Date.parse('2025-01-01T00:00:00+01:00');
const TO = FROM + 365 * DAY;
const ZONE = 'Europe/Berlin';

const db = await openDatabase(join(tempDir('period-energy-bench-'), 'heliograph.db'));
await migrate(db, priceMigrations);
const store = await HistoryStore.open({
  db,
  clock: new ManualClock(TO),
  config: { retentionDays: 3650, diskBudgetMb: 4096, flushIntervalMs: 5000 },
  autoFlush: false,
});
const t0 = performance.now();
for (let c = 0; c < PERIOD_COUNTERS.length; c++) {
  const [name, topic] = PERIOD_COUNTERS[c]!;
  const kw = 0.3 + c * 0.2;
  for (let month = FROM; month < TO; month += 30 * DAY) {
    const times: number[] = [];
    const values: number[] = [];
    let day = periodBounds(month, 'daily', ZONE);
    for (let t = month; t < Math.min(TO, month + 30 * DAY); t += STEP) {
      if (t >= day.end) day = periodBounds(t, 'daily', ZONE);
      times.push(t);
      values.push(Math.round(((kw * (t - day.start)) / 3_600_000) * 1000) / 1000);
    }
    await store.recordPast(topicMeta(topic, { name, unit: 'kWh' }), { times, values });
  }
}
console.log(`stored a year of ${PERIOD_COUNTERS.length} counters at 10 s in ${Math.round(performance.now() - t0)} ms`);
const prices: Array<[string, number, number, number]> = [];
for (let t = FROM; t < TO; t += 3_600_000) prices.push(['import', t, t + 3_600_000, 0.2]);
for (let i = 0; i < prices.length; i += 500) {
  const chunk = prices.slice(i, i + 500);
  await db.run(
    `INSERT INTO price_slots (kind, start, end, price, currency, provider) VALUES ${chunk.map(() => "(?, ?, ?, ?, 'EUR', 'b')").join(', ')}`,
    ...chunk.flat(),
  );
}
const energy = new PeriodEnergy({
  store,
  db,
  log: { values: () => [{ time: FROM, value: ZONE }] },
  timeZone: () => ZONE,
  now: () => TO,
  priceAdjust: () => ({ multiplier: 1, offset: 0 }),
  currency: () => Promise.resolve('EUR'),
});
for (const [period, from, to] of [
  ['day', FROM, TO],
  ['month', FROM, TO],
  ['hour', TO - 31 * DAY, TO],
] as const) {
  const runs: number[] = [];
  let buckets = 0;
  for (let i = 0; i < 7; i++) {
    const start = performance.now();
    buckets = (await energy.figures(period, from, to)).buckets.length;
    runs.push(performance.now() - start);
  }
  runs.sort((a, b) => a - b);
  console.log(
    `${period}: ${buckets} buckets in ${runs[3]!.toFixed(1)} ms (median of 7; fastest ${runs[0]!.toFixed(1)})`,
  );
}
await store.close();
await db.close();
