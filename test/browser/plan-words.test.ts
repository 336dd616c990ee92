import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { BROWSER_SKIP } from './browser.js';
import { chromiumForFile } from './backfilled-site.js';
import { openSignedIn } from './page.js';
import { basic, SIMULATOR, startSite, type Site } from './site.js';

// The plan in words an owner understands, against the real service with the simulator and
// the planner in dry-run: what the battery does next and until when, in the site's zone
// (Tokyo) while the browser is in Los Angeles, day names past today, the saving in the
// price book's currency, and the chart's price unit and battery-power axis.

const SITE_ZONE = 'Asia/Tokyo';
const BROWSER = { timezoneId: 'America/Los_Angeles', locale: 'en-GB' };

let browser: Browser;
let site: Site;
if (!BROWSER_SKIP) {
  site = await startSite({
    config: { site: { timeZone: SITE_ZONE } },
    plugins: [
      { ...SIMULATOR, config: { backfill_days: 0, pollIntervalMs: 1000 } },
      { id: 'planner', plugin: 'planner', devices: ['planner_1'], config: { mode: 'dry-run', checkIntervalMs: 1000 } },
    ],
  });
  browser = await chromiumForFile();
}

async function get<T>(path: string): Promise<T> {
  const answer = await fetch(`${site.url}/api/v1${path}`, { headers: { authorization: basic() } });
  assert.equal(answer.status, 200, `GET ${path}`);
  return (await answer.json()) as T;
}

const time = (ms: number, timeZone: string) =>
  new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', timeZone }).format(ms);
const weekday = (ms: number, timeZone: string) =>
  new Intl.DateTimeFormat('en-GB', { weekday: 'long', timeZone }).format(ms);
const date = (ms: number, timeZone: string) => new Date(ms).toLocaleDateString('en-CA', { timeZone });

test(
  "the plan says what the battery does next in words, in the site's zone with day names, its saving in currency, and the chart its units",
  { skip: BROWSER_SKIP },
  async (t) => {
    const page = await openSignedIn(t, browser, site.url, undefined, BROWSER);
    const card = page.locator('#plan');
    await card.locator('.plan-chart canvas').waitFor();
    const words = card.locator('.plan-next');
    await page.waitForFunction(() => /\.$/.test(document.querySelector('#plan .plan-next')?.textContent ?? ''));
    const sentence = await words.innerText();
    assert.match(
      sentence,
      /^(Charging from the grid|Discharging to cover the house|Holding the charge|Running by itself \(charging from surplus sun, covering the house\))( \([^)]*\))? (until .+|to the plan's end)\.$/,
      sentence,
    );

    // The blocks as the service planned them, in the site's zone.
    const grid = await get<{ pricing: { currency: string; unit: string } }>('/grid');
    const modes = await get<{ points: Array<[string, number]> }>(
      `/forecast?topic=planner_1/mode_planned&from=${encodeURIComponent(new Date(Date.now() - 15 * 60_000).toISOString())}`,
    );
    const points = modes.points.map(([at, mode]) => ({ at: Date.parse(at), mode }));
    const firstChange = points.find((p) => p.mode !== points[0]!.mode);
    const now = Date.now();
    const inSite = (ms: number) =>
      date(ms, SITE_ZONE) === date(now, SITE_ZONE)
        ? time(ms, SITE_ZONE)
        : `${weekday(ms, SITE_ZONE)} ${time(ms, SITE_ZONE)}`;
    if (firstChange)
      assert.ok(
        sentence.includes(`until ${inSite(firstChange.at)}`),
        `${sentence} says until ${inSite(firstChange.at)}`,
      );
    const items = await card.locator('.plan-actions li').allInnerTexts();
    assert.ok(
      items[0]!.includes(time(points[0]!.at, SITE_ZONE)),
      `the first block starts at the site's ${time(points[0]!.at, SITE_ZONE)}: ${items[0]}`,
    );
    const end = points[points.length - 1]!.at + 15 * 60_000;
    assert.ok(
      items[items.length - 1]!.endsWith(`–${inSite(end)}`),
      `the plan ends ${inSite(end)} in the site's zone: ${items[items.length - 1]}`,
    );
    assert.notEqual(date(end, SITE_ZONE), date(now, SITE_ZONE), 'the plan reaches into another day of the site');
    assert.match(items.join('\n'), new RegExp(weekday(end, SITE_ZONE)), 'days past today are named');

    // The saving in the price book's currency.
    await card.locator('.plan-saving:not([hidden])').waitFor();
    const money = new Intl.NumberFormat('en-GB', { style: 'currency', currency: grid.pricing.currency })
      .formatToParts(0)
      .find((p) => p.type === 'currency')!.value;
    const currency = money.replace(/[$]/g, '\\$');
    // Today's and the whole plan's (planner_1/saving_planned), once the plan's is published.
    await page.waitForFunction(() =>
      /over the whole plan/.test(document.querySelector('#plan .plan-saving')?.textContent ?? ''),
    );
    assert.match(
      await card.locator('.plan-saving').innerText(),
      new RegExp(
        `^Estimated saving today: -?${currency}[\\d.,]+, -?${currency}[\\d.,]+ over the whole plan \\(against`,
      ),
    );

    // The chart: price in its unit, the battery's power on its own axis (titles drawn on the canvas).
    const axes = (await card.locator('.plan-chart').getAttribute('data-axes'))!.split('|');
    assert.deepEqual(
      axes,
      ['', grid.pricing.unit, '', 'Battery power'],
      'the axes: time, price, charge, battery power',
    );
    const legend = await card.locator('.u-legend').innerText();
    assert.ok(legend.includes(`Price (${grid.pricing.unit})`), `the legend names the price unit: ${legend}`);
    assert.match(legend, /Battery power \(\+ discharging\)/);
  },
);
