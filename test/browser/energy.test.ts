import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { BROWSER_SKIP } from './browser.js';
import { chromiumForFile } from './backfilled-site.js';
import { axeViolations, DESKTOP, horizontalOverflow, openSignedIn, PHONE, screenshot } from './page.js';
import { basic, startSite, type Site } from './site.js';
import { importHistory, PER_HOUR, weeklyTotalsCsv } from './totals-history.js';

// Energy by calendar on the Overview, against the real service with kWh totals history
// imported the way an owner would (`heliograph history import`): the site is in Tokyo
// (UTC+9, no daylight saving), the browser in Los Angeles with an en-GB locale.

const SITE_ZONE = 'Asia/Tokyo';
const OFFSET = 9 * 3_600_000;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** Local midnight (Tokyo) of the day containing `ms`. */
const tokyoMidnight = (ms: number) => Math.floor((ms + OFFSET) / DAY) * DAY - OFFSET;
/** Local Monday midnight (Tokyo) of the week containing `ms` (weekly reset, the default). */
const tokyoMonday = (ms: number) => {
  const midnight = tokyoMidnight(ms);
  const weekday = (new Date(midnight + OFFSET).getUTCDay() + 6) % 7;
  return midnight - weekday * DAY;
};

let browser: Browser;
let site: Site;
let todayStart = 0;
if (!BROWSER_SKIP) {
  site = await startSite();
  await site.waitForLog(/backfill complete/);
  const put = await fetch(`${site.url}/api/v1/config`, {
    method: 'PUT',
    headers: { authorization: basic(), 'content-type': 'application/json' },
    body: JSON.stringify({ site: { timeZone: SITE_ZONE } }),
  });
  assert.equal(put.status, 200, await put.text());
  await site.stop();
  todayStart = tokyoMidnight(Date.now());
  // History of the six kWh totals from 40 to 3 days before today (Tokyo), one reading at the
  // end of every hour, restarting every Monday, as the core counts them. It ends before the
  // simulator's own backfilled days: two counters interleaved in one topic would not be one
  // device's readings.
  await importHistory(site, weeklyTotalsCsv(PER_HOUR, todayStart - 40 * DAY, todayStart - 3 * DAY, tokyoMonday));
  await site.restart();
  browser = await chromiumForFile();
}

const BROWSER = { timezoneId: 'America/Los_Angeles', locale: 'en-GB' };

async function choose(page: Page, period: string, date: string): Promise<void> {
  await page.getByLabel('Period').selectOption(period);
  await page.getByLabel('Date').fill(date);
  await page.locator('.bars-box:not([aria-busy])').waitFor();
}

/** The rows of the energy table as text, keyed by their first cell. */
async function tableRows(page: Page): Promise<Map<string, string[]>> {
  const rows = await page
    .locator('.energy-table tbody tr')
    .evaluateAll((trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent ?? '')));
  return new Map(rows.map((r) => [r[0]!, r.slice(1)]));
}

const isoDay = (ms: number) => new Date(ms + OFFSET).toISOString().slice(0, 10);

for (const [size, viewport] of [
  ['desktop', DESKTOP],
  ['phone', PHONE],
] as const) {
  test(
    `${size}: a day has the same kWh in its day, week, month and year, in the site's zone`,
    { skip: BROWSER_SKIP },
    async (t) => {
      const page = await openSignedIn(t, browser, site.url, viewport, BROWSER);
      // "Today" is the site's (Tokyo) date, not the browser's (Los Angeles).
      await page.locator('.bars-box:not([aria-busy])').waitFor();
      assert.equal(await page.getByLabel('Date').inputValue(), isoDay(Date.now()));
      const day = todayStart - 10 * DAY;
      await choose(page, 'day', isoDay(day));
      const figures = await page.locator('.energy-history dl.energy').innerText();
      assert.match(figures, /Solar produced\s+6 kWh/);
      assert.match(figures, /Home used\s+12 kWh/);
      assert.match(figures, /Bought from grid\s+3 kWh/);
      assert.match(figures, /Sold to grid\s+1[.,]2 kWh/);
      assert.match(figures, /Battery charged\s+4[.,]8 kWh/);
      assert.match(figures, /Battery discharged\s+3[.,]6 kWh/);
      // Self-sufficiency (12 − 3) / 12, self-consumption (6 − 1.2) / 6.
      assert.match(figures, /Self-consumption\s+80%/);
      assert.match(figures, /Self-sufficiency\s+75%/);
      assert.equal(await page.locator('.bars-box').getAttribute('data-buckets'), '24');
      // Hour labels in the browser's locale (en-GB: 24 h), no AM/PM.
      const hours = await tableRows(page);
      assert.equal(hours.size, 24);
      assert.ok(![...hours.keys()].some((k) => /AM|PM/i.test(k)), [...hours.keys()].join(' '));
      await screenshot(page, `${size}-energy-day`);

      await choose(page, 'week', isoDay(day));
      const week = await tableRows(page);
      assert.equal(week.size, 7);
      await choose(page, 'month', isoDay(day));
      const month = await tableRows(page);
      const shared = [...week.keys()].filter((k) => month.has(k));
      assert.ok(shared.length >= 1, `the week and the month share days: ${[...week.keys()].join(', ')}`);
      for (const label of shared) {
        assert.deepEqual(week.get(label), month.get(label), `${label} in the week and in the month`);
        // Every full past day: 6 kWh of solar, 12 of use.
        if (week.get(label)![0] !== 'no data') assert.deepEqual(week.get(label)!.slice(0, 2), ['6', '12'], label);
      }
      await screenshot(page, `${size}-energy-month`);
      // The year's bar of that month equals the month's sum.
      // Days still to come read "no data", and count nothing.
      const monthPv = [...month.values()]
        .filter((r) => r[0] !== 'no data')
        .reduce((a, r) => a + Number(r[0]!.replace(',', '')), 0);
      await choose(page, 'year', isoDay(day));
      const year = await tableRows(page);
      assert.equal(year.size, 12);
      const monthName = new Date(day + OFFSET).toLocaleDateString('en-GB', { month: 'long', timeZone: 'UTC' });
      const yearPv = Number(year.get(monthName)![0]!.replace(',', ''));
      // The table shows 2 decimals: each day's rounding may add up.
      assert.ok(
        Math.abs(yearPv - monthPv) < 0.005 * month.size + 0.01,
        `${monthName} in the year: ${yearPv}, its days: ${monthPv}`,
      );
      // Previous and next step by the period chosen.
      await page.getByRole('button', { name: 'Previous year' }).click();
      await page.locator('.bars-box:not([aria-busy])').waitFor();
      assert.match(
        await page.locator('.period-title').innerText(),
        new RegExp(String(new Date(day).getUTCFullYear() - 1)),
      );
      assert.deepEqual(await horizontalOverflow(page), [], 'overflow');
      assert.deepEqual(await axeViolations(page), [], 'axe-core');
      // A tap on a bar says its figures, and outlines it; a month without history reads "no data".
      await page.getByRole('button', { name: 'Next year' }).click();
      await page.locator('.bars-box:not([aria-busy])').waitFor();
      const monthIndex = new Date(day + OFFSET).getUTCMonth();
      const bar = page.locator('.energy-bars .hit').nth(monthIndex);
      await bar.click();
      assert.match(
        await page.locator('.energy-history .bar-detail').innerText(),
        new RegExp(`^${monthName}: solar produced [\\d.,]+ kWh`),
      );
      assert.match((await bar.getAttribute('class')) ?? '', /\bpicked\b/, 'the tapped bar is outlined');
      assert.equal(await page.locator('.energy-bars .hit.picked').count(), 1);
      if (monthIndex > 1) {
        await page.locator('.energy-bars .hit').first().click();
        assert.equal(await page.locator('.energy-history .bar-detail').innerText(), 'January: no data.');
        assert.equal(year.get('January')![0], 'no data');
      }
      // Labels under the bars and a kWh scale beside them.
      assert.ok((await page.locator('.energy-axis .tick').count()) >= 4, 'month labels under the bars');
      assert.match(await page.locator('.energy-scale').innerText(), /kWh/);
      // The CSV of what is shown: a header and one line per month.
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('link', { name: 'Download CSV' }).click(),
      ]);
      assert.match(download.suggestedFilename(), /^energy-year-\d{4}-01-01\.csv$/);
      const csv = readFileSync(await download.path(), 'utf8');
      const lines = csv.trim().split('\n');
      assert.equal(
        lines[0],
        `start (${SITE_ZONE}),pv_kwh,load_kwh,import_kwh,export_kwh,charge_kwh,discharge_kwh,net_cost_eur`,
      );
      assert.equal(lines.length, 13);
    },
  );
}

test(
  "a past day's cost and savings, at the prices the service kept for it across its restart",
  { skip: BROWSER_SKIP },
  async (t) => {
    // The simulator published prices for its backfilled days before the restart above; the
    // service kept them, so a past day is costed hour by hour at those prices: the
    // hours' kWh from the service's per-period answer, the prices from /grid, worked out here.
    // Yesterday's UTC date, which lies wholly in the simulator's 2-day backfill at any time of
    // day (the day before yesterday in Tokyo does only from 15:00 to 24:00 UTC); `from` is the
    // Tokyo midnight that starts that date, so isoDay(from) names it.
    const from = Date.parse(`${new Date(Date.now() - DAY).toISOString().slice(0, 10)}T00:00:00Z`) - OFFSET;
    const range = `from=${new Date(from - DAY).toISOString()}&to=${new Date(from + 2 * DAY).toISOString()}`;
    const res = await fetch(`${site.url}/api/v1/grid?${range}`, { headers: { authorization: basic() } });
    assert.equal(res.status, 200);
    const { pricing } = (await res.json()) as {
      pricing: { currency: string; slots: Array<{ from: string; to: string; price: number }> };
    };
    assert.equal(pricing.currency, 'EUR');
    // The day as it was recorded: the hours whose local date (in the zone in force then,
    // which their `from` carries) is that day. The site counted in UTC before the test
    // chose Tokyo, so it is the UTC day of that date.
    const wide = `from=${new Date(from - DAY).toISOString()}&to=${new Date(from + 2 * DAY).toISOString()}`;
    const answer = await fetch(`${site.url}/api/v1/energy?period=hour&${wide}`, {
      headers: { authorization: basic() },
    });
    assert.equal(answer.status, 200);
    const buckets = (
      (await answer.json()) as {
        buckets: Array<{ from: string; energy: { grid_in: number; grid_out: number; load: number } | null }>;
      }
    ).buckets.filter((b) => b.from.startsWith(isoDay(from)));
    assert.equal(buckets.length, 24);
    let cost = 0;
    let without = 0;
    let sold = 0;
    for (const bucket of buckets) {
      const hour = Date.parse(bucket.from);
      const inHour = pricing.slots.filter((s) => Date.parse(s.from) >= hour && Date.parse(s.to) <= hour + HOUR);
      assert.ok(inHour.length > 0, `a kept price for ${bucket.from}`);
      assert.ok(bucket.energy, `energy recorded in ${bucket.from}`);
      const price = inHour.reduce((sum, s) => sum + s.price, 0) / inHour.length;
      cost += bucket.energy.grid_in * price; // demo prices pay nothing for export
      without += bucket.energy.load * price;
      sold += bucket.energy.grid_out;
    }

    const page = await openSignedIn(t, browser, site.url, DESKTOP, BROWSER);
    await page.locator('.bars-box:not([aria-busy])').waitFor();
    await choose(page, 'day', isoDay(from));
    const figures = page.locator('.energy-history dl.energy');
    const euros = async (label: string) => {
      const text = await figures.locator('div', { hasText: label }).locator('dd').innerText();
      assert.match(text, /^-?€\d+\.\d\d$/, `${label}: ${text}`);
      return Number(text.replace('€', ''));
    };
    const shown = await figures.innerText();
    assert.ok(Math.abs((await euros('Net cost')) - cost) < 0.006, `net cost, expected ${cost}: ${shown}`);
    assert.ok(
      Math.abs((await euros('Savings')) - (without - cost)) < 0.006,
      `savings, expected ${without - cost}: ${shown}`,
    );
    assert.equal(
      await page.locator('.energy-history .hint', { hasText: /without a price|No cost/ }).count(),
      0,
      'every hour priced',
    );
    // What the money includes, and what it leaves out: sold energy without an export price.
    assert.match(shown, /Import cost\s+€[\d.]+\s+Export revenue\s+€0\.00\s+Standing charge\s+€0\.00/);
    if (sold > 0)
      assert.match(await page.locator('.energy-history').innerText(), /Sold energy not priced: no export price\./);
    await screenshot(page, 'desktop-energy-past-day-cost');

    // Ten days back the service has no prices: no sum, and the hours are named.
    await choose(page, 'day', isoDay(todayStart - 10 * DAY));
    assert.equal(await figures.locator('div', { hasText: 'Net cost' }).locator('dd').innerText(), '—');
    assert.match(
      await page.locator('.energy-history').innerText(),
      /No cost for this period: (none of its 24 h with energy has a known price|no price is known for any of its hours with energy)\./,
    );
    assert.deepEqual(await axeViolations(page), [], 'axe-core');
  },
);
