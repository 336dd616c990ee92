import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { BROWSER_SKIP } from './browser.js';
import { chromiumForFile } from './backfilled-site.js';
import { openSignedIn, showScreen } from './page.js';
import { basic, SIMULATOR, startSite, type Site } from './site.js';
import { importHistory, PER_HOUR, weeklyTotalsCsv } from './totals-history.js';

// Issue 45: changing the site's time zone and the energy reset period never changes a past
// figure. The site counts in Europe/Berlin with weekly resets from its first start; its
// history holds two months of kWh totals imported as the core counted them (across the
// last change of the clocks, a day of 23 or 25 hours) and the demo simulator's backfilled
// week with its prices. Every past day's, month's and year's kWh and money is read from the
// page and from GET /api/v1/energy; the zone (to America/New_York) and the reset (to daily)
// are changed on the Site tab; everything is read again: unchanged, and the page agrees
// with the API.
//
// The clock: `heliograph serve` in a child process (how the browser tests run the service)
// has no manual clock; the in-process server (test/helpers/server.ts `clock`) has one, but
// the page and its WebSocket run against the real service here. So the DST change is crossed
// in the recorded history (imported readings every hour through 25 October), not by moving
// a clock; the change of settings happens at the real "now".

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const ZONE = 'Europe/Berlin';
/** "+02:00": Berlin's offset at `ms`. */
function offset(ms: number): string {
  const name = new Intl.DateTimeFormat('en-US', { timeZone: ZONE, timeZoneName: 'longOffset' })
    .formatToParts(ms)
    .find((p) => p.type === 'timeZoneName')!.value;
  return name === 'GMT' ? '+00:00' : name.slice(3);
}

/**
 * The latest Berlin day before `before` on which the clocks changed (at 01:00 UTC, so on the
 * UTC date of that day): its date, its start and end as the API writes them, and its hours.
 */
function lastClockChange(before: number): { date: string; from: string; to: string; hours: number } {
  for (let m = Math.floor(before / DAY) * DAY - DAY; m > before - 400 * DAY; m -= DAY) {
    const [a, b] = [offset(m), offset(m + DAY)];
    if (a === b) continue;
    const minutes = (o: string) => (o[0] === '-' ? -1 : 1) * (Number(o.slice(1, 3)) * 60 + Number(o.slice(4, 6)));
    const date = new Date(m).toISOString().slice(0, 10);
    const next = new Date(m + DAY).toISOString().slice(0, 10);
    return {
      date,
      from: `${date}T00:00:00${a}`,
      to: `${next}T00:00:00${b}`,
      hours: 24 + (minutes(a) - minutes(b)) / 60,
    };
  }
  throw new Error('no change of the clocks in Berlin within 400 days');
}

/** Monday 00:00 in Berlin of the week containing `ms` (the counters' weekly reset). */
function berlinMonday(ms: number): string {
  const local = new Date(ms).toLocaleDateString('en-CA', { timeZone: ZONE });
  const day = new Date(`${local}T12:00:00Z`);
  day.setUTCDate(day.getUTCDate() - ((day.getUTCDay() + 6) % 7));
  return day.toISOString().slice(0, 10);
}

let browser: Browser;
let site: Site;
let historyStart = 0;
let dst: ReturnType<typeof lastClockChange>;
if (!BROWSER_SKIP) {
  site = await startSite({
    plugins: [{ ...SIMULATOR, config: { backfill_days: 7, pollIntervalMs: 1000 } }],
    config: { site: { timeZone: ZONE }, energy: { resetPeriod: 'weekly' } },
  });
  // The backfill logs its progress every few seconds: wait while it moves (slower on a loaded
  // machine than the minute one line may take), up to a bounded number of progress lines.
  for (let from = 0, lines = 0; ; lines++) {
    const line = await site.waitForLog(/backfill complete|Recording the demo's last 7 days: [\d.]+ of 7 days/, from);
    if (line[0] === 'backfill complete') break;
    assert.ok(lines < 200, 'the backfill completes within 200 progress lines');
    from += line.index! + line[0].length;
  }
  await site.stop();
  // Two months up to the day before the simulator's backfilled week: one device's counters, never two interleaved.
  const backfillStart = Math.floor((Date.now() - 8 * DAY) / DAY) * DAY;
  // At least six weeks, and back to the last change of the clocks (days of 23 or 25 hours).
  dst = lastClockChange(backfillStart - DAY);
  historyStart = Math.min(backfillStart - 42 * DAY, Date.parse(dst.from) - 5 * DAY);
  historyStart = Math.floor(historyStart / DAY) * DAY;
  // The totals as the core counted them in Berlin with weekly resets.
  await importHistory(site, weeklyTotalsCsv(PER_HOUR, historyStart, backfillStart, berlinMonday));
  await site.restart();
  browser = await chromiumForFile();
}

interface Bucket {
  from: string;
  to: string;
  time_zone: string;
  energy: Record<string, number> | null;
  money: { net_cost: number; priced_hours: number } | null;
}

async function energy(period: string, from: number, to: number): Promise<Bucket[]> {
  const query = new URLSearchParams({ period, from: new Date(from).toISOString(), to: new Date(to).toISOString() });
  const res = await fetch(`${site.url}/api/v1/energy?${query}`, { headers: { authorization: basic() } });
  assert.equal(res.status, 200, await res.clone().text());
  return ((await res.json()) as { buckets: Bucket[] }).buckets;
}

/** Every finished day, month and year of the history, from the API, by the start the API gives it. */
async function apiFigures(now: number): Promise<Map<string, Bucket>> {
  const out = new Map<string, Bucket>();
  const year = new Date(historyStart).getUTCFullYear();
  const answers = await Promise.all([
    energy('day', historyStart - DAY, now),
    energy('month', Date.UTC(year - 1, 0, 1), now),
    energy('year', Date.UTC(year - 3, 0, 1), now),
  ]);
  answers.forEach((buckets, i) => {
    for (const bucket of buckets)
      if (Date.parse(bucket.to) <= now) out.set(`${['day', 'month', 'year'][i]}:${bucket.from}`, bucket);
  });
  return out;
}

const KINDS = ['pv', 'load', 'grid_in', 'grid_out', 'battery_in', 'battery_out'];

/** The page's rows of a month's or year's table: bucket start → [kWh of each kind..., net cost]. */
async function tableRows(page: Page, period: 'month' | 'year', date: string): Promise<Map<string, string[]>> {
  await page.getByLabel('Period').selectOption(period);
  await page.getByLabel('Date').fill(date);
  await page.locator('.energy-history .bars-box:not([aria-busy])').waitFor();
  await page.locator('.energy-history .period-title').waitFor();
  const kind = period === 'month' ? 'day' : 'month';
  const rows = await page
    .locator('.energy-table tbody tr')
    .evaluateAll((trs) =>
      trs.map((tr) => [
        tr.getAttribute('data-from') ?? '',
        ...[...tr.children].slice(1).map((c) => c.textContent ?? ''),
      ]),
    );
  return new Map(rows.map((r) => [`${kind}:${r[0]!}`, r.slice(1)]));
}

/** Every past day's and month's row on the page, read from the month and year tables that hold them. */
async function pageFigures(page: Page, keys: string[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  const dates = keys.filter((k) => !k.startsWith('year:')).map((k) => k.slice(k.indexOf(':') + 1));
  const months = new Set(dates.map((k) => `${k.slice(0, 7)}-15`));
  const years = new Set(dates.map((k) => `${k.slice(0, 4)}-06-15`));
  for (const date of months) for (const [k, v] of await tableRows(page, 'month', date)) out.set(k, v);
  for (const date of years) for (const [k, v] of await tableRows(page, 'year', date)) out.set(k, v);
  return out;
}

const number = (text: string) => Number(text.replace(/[€,]/g, ''));

/** The page's row says what the API's bucket says: kWh to the table's 2 decimals, "no data", the net cost. */
function assertAgree(key: string, row: string[] | undefined, bucket: Bucket): void {
  assert.ok(row, `the page shows ${key}`);
  KINDS.forEach((kind, i) => {
    if (bucket.energy === null) assert.equal(row[i], 'no data', `${key} ${kind}`);
    else
      assert.ok(
        Math.abs(number(row[i]!) - bucket.energy[kind]!) <= 0.0051,
        `${key} ${kind}: page ${row[i]}, API ${bucket.energy[kind]}`,
      );
  });
  const cost = row[KINDS.length];
  if (cost === undefined) return;
  if (bucket.money === null || bucket.money.priced_hours === 0) assert.equal(cost, '—', `${key} net cost`);
  else
    assert.ok(
      Math.abs(number(cost) - bucket.money.net_cost) <= 0.0051,
      `${key} net cost: page ${cost}, API ${bucket.money.net_cost}`,
    );
}

test(
  "a change of zone and reset period leaves every past day's, month's and year's kWh and money as it was",
  { skip: BROWSER_SKIP, timeout: 240_000 },
  async (t) => {
    const now = Date.now();
    const before = await apiFigures(now);
    const days = [...before].filter(([k, b]) => k.startsWith('day:') && b.energy !== null);
    assert.ok(days.length >= 40, `six weeks and more of past days with data: ${days.length}`);
    assert.ok(
      [...before.values()].some((b) => b.money !== null && b.money.priced_hours > 0),
      'the simulator’s backfilled days are priced',
    );
    // The day the clocks changed, as recorded in Berlin: 23 or 25 hours.
    const dstDay = before.get(`day:${dst.from}`);
    assert.ok(
      dstDay,
      `the API has ${dst.date} in Berlin: ${[...before.keys()].filter((k) => k.includes(dst.date)).join(', ')}`,
    );
    assert.equal(dstDay.to, dst.to);
    const dstPv = dst.hours * PER_HOUR.pv_energy!;
    assert.ok(
      Math.abs(dstDay.energy!.pv! - dstPv) < 0.01,
      `${dst.date}: ${dst.hours} hours of solar, ${dstDay.energy?.pv} kWh`,
    );

    const page = await openSignedIn(t, browser, site.url, undefined, { timezoneId: 'Asia/Tokyo', locale: 'en-GB' });
    await page.locator('.energy-history .bars-box:not([aria-busy])').waitFor();
    const keys = [...before.keys()];
    const shownBefore = await pageFigures(page, keys);
    for (const [key, bucket] of before) if (!key.startsWith('year:')) assertAgree(key, shownBefore.get(key), bucket);
    // The day the clocks changed on the page: 23 or 25 hour bars, and its figures.
    await page.getByLabel('Period').selectOption('day');
    await page.getByLabel('Date').fill(dst.date);
    await page.locator('.energy-history .bars-box:not([aria-busy])').waitFor();
    assert.equal(await page.locator('.energy-history .bars-box').getAttribute('data-buckets'), String(dst.hours));
    const dstFigures = await page.locator('.energy-history dl.energy').innerText();
    assert.match(dstFigures, new RegExp(`Solar produced\\s+${String(dstPv).replace('.', '\\.')} kWh`));
    // A past year without history reads "no data", not 0.
    const lastYear = String(new Date(historyStart).getUTCFullYear() - 1);
    await page.getByLabel('Period').selectOption('year');
    await page.getByLabel('Date').fill(`${lastYear}-06-15`);
    await page.locator('.energy-history .bars-box:not([aria-busy])').waitFor();
    const yearFiguresBefore = await page.locator('.energy-history dl.energy').innerText();
    assert.match(yearFiguresBefore, /Solar produced\s+no data/);

    // Read again without a change: what differs now is not the change's doing.
    const control = await apiFigures(now);
    for (const [key, bucket] of before) assert.deepEqual(control.get(key), bucket, `the API's ${key}, read twice`);

    // The owner picks another zone and daily resets on the Site tab.
    await showScreen(page, 'site');
    await page.getByLabel('Time zone').selectOption('America/New_York');
    await page.getByLabel('Energy totals reset').selectOption('daily');
    await page.getByRole('button', { name: 'Save site settings' }).click();
    await page.getByText('Saved and applied.').waitFor();
    const config = (await (
      await fetch(`${site.url}/api/v1/config`, { headers: { authorization: basic() } })
    ).json()) as { time_zone: string; energy: { resetPeriod: string } };
    assert.deepEqual([config.time_zone, config.energy.resetPeriod], ['America/New_York', 'daily']);

    // kWh first, then money: each failure says which of the two a change moved.
    const after = await apiFigures(now);
    const moved = (part: 'energy' | 'money') =>
      [...before]
        .filter(([key, bucket]) => JSON.stringify(after.get(key)?.[part]) !== JSON.stringify(bucket[part]))
        .map(
          ([key, bucket]) => `${key}: ${JSON.stringify(bucket[part])} became ${JSON.stringify(after.get(key)?.[part])}`,
        );
    assert.deepEqual(moved('energy'), [], `the API's past kWh after the change`);
    await showScreen(page, 'home');
    await page.locator('.energy-history .bars-box:not([aria-busy])').waitFor();
    const shownAfter = await pageFigures(page, keys);
    const pageMoved = (columns: [number, number]) =>
      [...shownBefore.keys()]
        .filter((key) => before.has(key))
        .filter(
          (key) =>
            JSON.stringify(shownAfter.get(key)?.slice(...columns)) !==
            JSON.stringify(shownBefore.get(key)!.slice(...columns)),
        )
        .map(
          (key) =>
            `${key}: ${shownBefore
              .get(key)!
              .slice(...columns)
              .join(' ')} became ${shownAfter
              .get(key)
              ?.slice(...columns)
              .join(' ')}`,
        );
    assert.deepEqual(pageMoved([0, KINDS.length]), [], `the page's past kWh after the change`);
    await page.getByLabel('Period').selectOption('day');
    await page.getByLabel('Date').fill(dst.date);
    await page.locator('.energy-history .bars-box:not([aria-busy])').waitFor();
    assert.equal(await page.locator('.energy-history .bars-box').getAttribute('data-buckets'), String(dst.hours));
    assert.equal(
      await page.locator('.energy-history dl.energy').innerText(),
      dstFigures,
      `${dst.date} after the change`,
    );
    await page.getByLabel('Period').selectOption('year');
    await page.getByLabel('Date').fill(`${lastYear}-06-15`);
    await page.locator('.energy-history .bars-box:not([aria-busy])').waitFor();
    assert.equal(
      await page.locator('.energy-history dl.energy').innerText(),
      yearFiguresBefore,
      `${lastYear} after the change`,
    );
    // Money last: the prices kept for past days must not move with the settings either.
    assert.deepEqual(moved('money'), [], `the API's past money after the change`);
    assert.deepEqual(pageMoved([KINDS.length, KINDS.length + 1]), [], `the page's past net cost after the change`);
  },
);
