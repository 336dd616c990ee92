import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startBackfilledSite } from './backfilled-site.js';
import { BROWSER_SKIP } from './browser.js';
import {
  ARTIFACTS,
  axeViolations,
  horizontalOverflow,
  openPage,
  openSignedIn,
  PHONE,
  screenshot,
  showScreen,
  signIn,
} from './page.js';
import { basic, pluginsWhen } from './site.js';

// The overview against the real service (`heliograph serve` in a child process) with the
// simulator: two days of backfilled history, live values every second, demo prices and
// forecast.

const { site, browser } = await startBackfilledSite();

/** Until every plugin instance is past starting: before that, its topics are not yet known. */
const pluginsStarted = () =>
  pluginsWhen(site, (list) => list.every((p) => p.state !== 'starting'), 'every plugin instance past starting');

async function writeSetting(topic: string, value: string): Promise<void> {
  const answer = await fetch(`${site.url}/api/v1/metrics`, {
    method: 'POST',
    headers: { authorization: basic(), 'content-type': 'application/json' },
    body: JSON.stringify({ topic, value }),
  });
  assert.equal(answer.status, 200, await answer.text());
}

test(
  'the power flow, the chart of the day with the forecast, and the price bars are drawn from the service',
  { skip: BROWSER_SKIP },
  async (t) => {
    const page = await openSignedIn(t, browser, site.url);
    // Power flow: every node has a value, and the summary says it in words.
    for (const node of ['pv', 'grid', 'battery', 'home']) {
      await page.waitForFunction(
        (n) => /\d/.test(document.querySelector(`.flow-value[data-node="${n}"]`)?.textContent ?? ''),
        node,
      );
    }
    assert.match(
      await page.locator('#flow-summary').innerText(),
      /^Solar .* k?W.*, grid .*, battery .*, home using .* k?W\.$/,
    );
    // The chart: uPlot's canvas over the backfilled day, in 10-minute buckets (web/src/charts/chart.ts RANGES.day).
    await page.locator('.chart canvas').waitFor();
    const points = Number(await page.locator('.chart[data-points]').getAttribute('data-points'));
    assert.ok(points > 12, `the day's chart has ${points} points`);
    assert.match(await page.locator('.chart .u-legend').innerText(), /Solar forecast/);
    // Energy of the day, scaled, once the card has its figures (it loads them on its own).
    await page.locator('#energy-card dl.energy:not([aria-busy])').waitFor();
    assert.match(await page.locator('#energy-card').innerText(), /Solar produced\s+[\d.,]+ k?Wh/);
    // Prices: one bar per slot, coloured by rank, the current one marked and named.
    assert.ok((await page.locator('.price-bars rect.bar').count()) >= 24);
    assert.equal(await page.locator('.price-bars rect.bar.now').count(), 1);
    // The simulated prices go below zero around sunny middays: a price may have its minus.
    assert.match(await page.locator('.price-now').innerText(), /^Now: [-\u2212]?[\d.,]+ EUR\/kWh/);
    // Another period and aggregate: this week at hourly maxima.
    await page.getByLabel('Period').selectOption('week');
    await page.getByLabel('Values').selectOption('max');
    await page
      .locator('.period-title')
      .filter({ hasText: /^Week of / })
      .waitFor();
    await page.locator('.chart:not([aria-busy]) canvas').waitFor();
    // For people to look at: the newest days and the forecast ahead are drawn, not gaps.
    await page.locator('#power').screenshot({ path: `${ARTIFACTS}desktop-week-power.png` });
  },
);

test(
  "on a phone the chart's legend is one row that scrolls sideways, and a tap hides a line",
  { skip: BROWSER_SKIP },
  async (t) => {
    const page = await openSignedIn(t, browser, site.url, PHONE);
    await page.locator('.chart:not([aria-busy]) canvas').waitFor();
    const legend = page.locator('.chart .u-legend');
    const box = await legend.evaluate((el) => {
      const entries = [...el.querySelectorAll<HTMLElement>('tr.u-series')].filter((tr) => tr.offsetParent !== null);
      return {
        height: el.getBoundingClientRect().height,
        entryHeight: Math.max(...entries.map((tr) => tr.getBoundingClientRect().height)),
        rows: new Set(entries.map((tr) => Math.round(tr.getBoundingClientRect().top))).size,
        entries: entries.length,
        scrolls: el.scrollWidth > el.clientWidth,
      };
    });
    assert.equal(box.entries, 6, 'solar, home, grid, battery, charge and forecast');
    assert.equal(box.rows, 1, `the legend's entries share one line: ${JSON.stringify(box)}`);
    // One line high (a scroll bar's height allowed), not the three or four lines it wrapped to.
    assert.ok(box.height < box.entryHeight * 1.8, `legend ${box.height} px high, an entry ${box.entryHeight} px`);
    assert.ok(box.scrolls, `what does not fit scrolls sideways ${JSON.stringify(box)}`);
    assert.equal(await legend.getAttribute('tabindex'), '0', 'keyboard users can scroll it');
    assert.deepEqual(await horizontalOverflow(page), [], 'overflow');
    assert.deepEqual(await axeViolations(page), [], 'axe-core');
    await page.locator('#power').screenshot({ path: `${ARTIFACTS}phone-chart-legend.png` });
    // The last entry is reached by scrolling; a tap on it hides its line, another shows it again.
    const forecast = legend.locator('tr.u-series', { hasText: 'Solar forecast' });
    await forecast.locator('th').click();
    assert.match((await forecast.getAttribute('class')) ?? '', /u-off/);
    await forecast.locator('th').click();
    assert.doesNotMatch((await forecast.getAttribute('class')) ?? '', /u-off/);
    await screenshot(page, 'phone-home-legend');
  },
);

test(
  'on a phone each price bar is at least 6 px wide (the bars scroll sideways) and the tapped one is outlined',
  { skip: BROWSER_SKIP },
  async (t) => {
    const page = await openSignedIn(t, browser, site.url, PHONE);
    await page.locator('.price-bars rect.bar').first().waitFor();
    const widths = await page
      .locator('.price-bars rect.bar')
      .evaluateAll((bars) => bars.map((b) => b.getBoundingClientRect().width));
    assert.ok(widths.length >= 24, `${widths.length} bars`);
    assert.ok(Math.min(...widths) >= 6, `the narrowest bar is ${Math.min(...widths).toFixed(1)} px`);
    // The current slot is in view, without scrolling by hand.
    const now = await page.locator('.price-bars rect.bar.now').boundingBox();
    assert.ok(
      now && now.x >= 0 && now.x + now.width <= PHONE.width,
      `the current slot is shown: ${JSON.stringify(now)}`,
    );
    const hit = page.locator('.price-bars rect.hit').nth(3);
    await hit.scrollIntoViewIfNeeded();
    await hit.click();
    assert.match((await hit.getAttribute('class')) ?? '', /\bpicked\b/);
    assert.equal(await page.locator('.price-bars rect.hit.picked').count(), 1);
    assert.match(
      await page.locator('#prices .bar-detail').innerText(),
      /\d\d:\d\d( [AP]M)?–\d\d:\d\d( [AP]M)?: [-\u2212]?[\d.,]+ EUR\/kWh/,
    );
    assert.deepEqual(await horizontalOverflow(page), [], 'overflow');
    await page.locator('#prices').screenshot({ path: `${ARTIFACTS}phone-price-bars.png` });
  },
);

test('live values arrive over the WebSocket, with no polling requests', { skip: BROWSER_SKIP }, async (t) => {
  // While an instance is still starting (the backfill's first run), the page asks for the
  // plugins' states again with back-off, by design; the check is about what follows.
  await pluginsStarted();
  // Opened on the devices screen: after sign-in the page asks for the snapshot and the
  // plugin list once, opens the socket, and the screen asks once for today's totals (after
  // the site's zone). The count starts once those answers and the first data frame have
  // arrived, so a start-up request that comes late (a loaded host) is not counted as polling.
  const page = await openPage(t, browser, `${site.url}/#devices`);
  const requests: string[] = [];
  page.on('request', (r) => {
    if (r.url().includes('/api/v1/')) requests.push(new URL(r.url()).pathname);
  });
  // Settles with the first data frame over the socket; none within 10 s fails the test.
  const live = page
    .waitForEvent('websocket')
    .then((ws) => ws.waitForEvent('framereceived', { predicate: (f) => String(f.payload).includes('"data"') }));
  const pluginList = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/v1/plugins');
  const todayTotals = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/v1/energy');
  await signIn(page);
  await page.locator('.tab[data-screen="devices"][aria-current="page"]').waitFor();
  const cell = page.locator('dd[data-topic="inverter_1/load_power"]');
  await cell.waitFor();
  await Promise.all([pluginList, todayTotals, live]);
  const first = await cell.innerText();
  assert.deepEqual(
    requests.filter((path) => path === '/api/v1/plugins'),
    ['/api/v1/plugins'],
    'the plugin list is asked for once, not again when the socket first opens',
  );
  const before = requests.length;
  // A change made elsewhere (here: by this test over REST) reaches the open page by itself.
  await writeSetting('inverter_1/max_charge_current', '70');
  await page
    .locator('form[data-topic="inverter_1/max_charge_current"] .current')
    .filter({ hasText: 'Now: 70 A' })
    .waitFor();
  assert.deepEqual(requests.slice(before), [], 'the page made no API request for it: no polling');
  assert.match(first, /^[\d.,]+ k?W$/, 'power is scaled with its unit');
});

test(
  'the offline banner shows while the service is down; values come back live after it restarts',
  { skip: BROWSER_SKIP },
  async (t) => {
    const page = await openPage(t, browser, site.url);
    // Stop the service only once the page is live (its first data frame arrived): stopped
    // earlier, it would catch the page still loading, which is another case. The frame is
    // awaited from the moment the socket opens, so one arriving during sign-in counts.
    const live = page
      .waitForEvent('websocket', { timeout: 30_000 })
      .then((ws) =>
        ws.waitForEvent('framereceived', { predicate: (f) => String(f.payload).includes('"data"'), timeout: 30_000 }),
      );
    await signIn(page);
    await live;
    const banner = page.locator('.banner');
    assert.equal(await banner.isVisible(), false);
    await site.stop();
    // The server closes its sockets as it shuts down; on a loaded machine that can take seconds.
    await banner.filter({ hasText: 'Offline.' }).waitFor({ timeout: 30_000 });
    assert.match(await banner.innerText(), /not live\. Reconnecting/);
    assert.equal(await page.evaluate(() => document.body.classList.contains('offline')), true, 'values are dimmed');

    // Back online, the page asks for the plugins' states again: they may have changed meanwhile.
    const listAgain = page
      .waitForRequest((r) => new URL(r.url()).pathname === '/api/v1/plugins', { timeout: 60_000 })
      .catch(() => assert.fail('waited 60 s for the page to ask for the plugin list again after the reconnect'));
    await site.restart();
    await banner.waitFor({ state: 'hidden', timeout: 30_000 });
    await listAgain;
    assert.equal(await page.evaluate(() => document.body.classList.contains('offline')), false);
    // Live again: a change after the reconnect reaches the page.
    await showScreen(page, 'devices');
    // The simulator runs in its own process: its topics exist once it has started again.
    await pluginsStarted();
    await writeSetting('inverter_1/max_charge_current', '30');
    await page
      .locator('form[data-topic="inverter_1/max_charge_current"] .current')
      .filter({ hasText: 'Now: 30 A' })
      .waitFor();
  },
);
