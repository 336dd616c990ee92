import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pollUntil } from '../helpers/deadline.js';
import { startBackfilledSite } from './backfilled-site.js';
import { BROWSER_SKIP } from './browser.js';
import {
  ARTIFACTS,
  axeViolations,
  DESKTOP,
  horizontalOverflow,
  openPage,
  openSignedIn,
  PHONE,
  screenshot,
  showScreen,
} from './page.js';
import { basic, startSite, type Site } from './site.js';

// The page's details at phone and desktop size: prices a phone can read (day marks, hour
// labels, a bar's figures by tap, the cheapest window), readable device values, a revoked
// token sending the page to sign-in, the Access button's name, and the first run with the
// code from the data directory.

const { site, browser } = await startBackfilledSite();
/** A site on its first run: no password, no plugins. */
const fresh = BROWSER_SKIP ? ({} as Site) : await startSite({ plugins: [], password: null });

const BROWSER = { timezoneId: 'America/New_York', locale: 'en-GB' };

for (const [size, viewport] of [
  ['desktop', DESKTOP],
  ['phone', PHONE],
] as const) {
  test(
    `${size}: prices show days, hours, a bar's figures by tap and the cheapest window`,
    { skip: BROWSER_SKIP },
    async (t) => {
      const page = await openSignedIn(t, browser, site.url, viewport, BROWSER);
      const prices = page.locator('#prices');
      await prices.locator('.price-bars').waitFor();
      // Hour labels every 6 h in 24-hour form (en-GB), and a day marker at each midnight.
      const ticks = await prices.locator('.price-axis .tick').allInnerTexts();
      assert.ok(
        ticks.some((x) => /^(06|12|18):00$/.test(x)),
        ticks.join(' '),
      );
      assert.ok(!ticks.some((x) => /AM|PM/i.test(x)), ticks.join(' '));
      assert.ok((await prices.locator('.day-mark').count()) >= 1, 'a day marker');
      // Tap a bar: its time and price, in words.
      await prices.locator('.price-bars .hit').nth(3).click();
      assert.match(
        await prices.locator('.bar-detail').innerText(),
        /^\w{3} \d\d:\d\d–\d\d:\d\d: [-\u2212]?[\d.,]+ EUR\/kWh, rank \d+ of \d+ that day$/,
      );
      // Every price is in a list for screen readers too.
      assert.ok((await prices.locator('.price-table li').count()) >= 24);
      // The cheapest window for the chosen length.
      await prices.getByLabel('Run for').selectOption('3');
      assert.match(
        await prices.locator('.cheapest-window').innerText(),
        /^Cheapest 3 h (tomorrow|ahead.*): \w{3} \d\d:\d\d–\d\d:\d\d, [-\u2212]?[\d.,]+ EUR\/kWh on average\.$/,
      );
      assert.deepEqual(await horizontalOverflow(page), []);
      assert.deepEqual(await axeViolations(page), []);
      await prices.screenshot({ path: `${ARTIFACTS}${size}-prices.png` });
    },
  );

  test(
    `${size}: device values read as words: ids as written, uptime in days or hours, totals are today's`,
    { skip: BROWSER_SKIP },
    async (t) => {
      const page = await openSignedIn(t, browser, site.url, viewport, BROWSER);
      await showScreen(page, 'devices');
      const siteId = page.locator('dd[data-topic="system/site_id"]');
      await siteId.waitFor();
      await page.waitForFunction(() =>
        /\d/.test(document.querySelector('dd[data-topic="system/site_id"]')?.textContent ?? ''),
      );
      assert.match(await siteId.innerText(), /^\d+$/);
      const uptime = page.locator('dd[data-topic="system/uptime"]');
      await page.waitForFunction(() =>
        /\d/.test(document.querySelector('dd[data-topic="system/uptime"]')?.textContent ?? ''),
      );
      assert.match(await uptime.innerText(), /^\d+ (s|min)$|^\d+ h( \d+ min)?$/);
      // The site's kWh totals are today's, from the same per-period answer as the Overview's.
      await page.getByText('PV energy (today)').waitFor();
      await page.waitForFunction(() =>
        /^[\d.,]+ k?Wh$|^no data$/.test(document.querySelector('dd[data-topic="total/pv_energy"]')?.textContent ?? ''),
      );
      // Storage in the size a person reads (1024-based), not thousands of MB.
      const storage = page.locator('dd[data-topic="system/free_storage"]');
      if ((await storage.count()) > 0) {
        await page.waitForFunction(() =>
          /\d/.test(document.querySelector('dd[data-topic="system/free_storage"]')?.textContent ?? ''),
        );
        const text = await storage.innerText();
        assert.match(text, /^[\d.,]+ (MB|GB|TB)$/);
        assert.ok(!/^\d{1,3},\d{3}/.test(text), `no thousands of MB: ${text}`);
      }
      assert.deepEqual(await horizontalOverflow(page), []);
      assert.deepEqual(await axeViolations(page), []);
      await screenshot(page, `${size}-devices-values`);
    },
  );

  test(
    `${size}: a revoked token shows the sign-in form, not a reconnecting banner`,
    { skip: BROWSER_SKIP },
    async (t) => {
      const page = await openSignedIn(t, browser, site.url, viewport, BROWSER);
      await showScreen(page, 'access');
      // The own token's button reads "Sign out" and its name starts so.
      const own = page.getByRole('button', { name: /^Sign out: revoke this page's token Settings page/ });
      await own.waitFor();
      assert.deepEqual(await axeViolations(page), []);
      const stored = await page.evaluate(
        () => JSON.parse(localStorage.getItem('heliograph.token') ?? '{}') as { id: string },
      );
      // Revoked elsewhere (another browser, the API): the socket closes, the page checks and signs out.
      const revoke = await fetch(`${site.url}/api/v1/tokens/${stored.id}`, {
        method: 'DELETE',
        headers: { authorization: basic() },
      });
      assert.equal(revoke.status, 204);
      await page.getByRole('form', { name: 'Sign in' }).waitFor();
      assert.match(
        await page.getByRole('form', { name: 'Sign in' }).getByRole('alert').innerText(),
        /signed out \(its token was revoked or expired\)/,
      );
      await screenshot(page, `${size}-revoked`);
    },
  );
}

test(
  'first run from a phone: the code in the data directory, a stale error cleared by the next try',
  { skip: BROWSER_SKIP },
  async (t) => {
    const page = await openPage(t, browser, fresh.url, PHONE, BROWSER);
    await page.getByRole('form', { name: 'First start' }).waitFor();
    const file = join(fresh.dataDir, 'setup-code');
    const code = readFileSync(file, 'utf8').trim();
    assert.match(code, /^[A-Z0-9]{4}-[A-Z0-9]{4}$/);
    // A wrong code first: the field says so, and so does the status line.
    await page.getByLabel('Setup code').fill('AAAA-AAAA');
    await page.getByLabel('New device password').fill('a good long password');
    await page.getByLabel('Repeat the password').fill('a good long password');
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.locator('.message.error').waitFor();
    // Then passwords that differ: only that error stands, not the old one beside it.
    await page.getByLabel('Setup code').fill(code);
    await page.getByLabel('Repeat the password').fill('another password');
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByText('The two passwords differ').waitFor();
    assert.equal(await page.locator('.message.error:not([hidden])').count(), 0, 'the old status line is gone');
    assert.equal(await page.locator('.field-error').count(), 1);
    assert.deepEqual(await axeViolations(page), []);
    await screenshot(page, 'phone-setup-error');
    await page.getByLabel('Repeat the password').fill('a good long password');
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByRole('navigation', { name: 'Screens' }).waitFor();
    assert.equal(existsSync(file), false, 'the code file is deleted once used');
  },
);

for (const [size, viewport] of [
  ['desktop', DESKTOP],
  ['phone', PHONE],
] as const) {
  test(`${size}: an alert set on the Site tab shows on the Overview, live`, { skip: BROWSER_SKIP }, async (t) => {
    const page = await openSignedIn(t, browser, site.url, viewport, BROWSER);
    await showScreen(page, 'site');
    const field = page.getByLabel('Battery below (%)');
    await field.waitFor();
    assert.deepEqual(await axeViolations(page), [], 'site tab with alerts');
    const soc = await socBelowFull();
    await field.fill(String(Math.floor(soc) + 1));
    await page.getByRole('button', { name: 'Save site settings' }).click();
    await page.getByText('Saved and applied.').waitFor();
    await showScreen(page, 'home');
    await page.locator('.alerts', { hasText: /^Alert: battery at [\d.]+ %, below \d+ %\.$/ }).waitFor();
    assert.deepEqual(await axeViolations(page), [], 'overview with an alert');
    await screenshot(page, `${size}-alert`);
    // Off again: the banner goes by itself.
    await showScreen(page, 'site');
    await page.getByLabel('Battery below (%)').fill('');
    await page.getByRole('button', { name: 'Save site settings' }).click();
    await page.getByText('Saved and applied.').waitFor();
    await showScreen(page, 'home');
    await page.locator('.alerts').waitFor({ state: 'hidden' });
  });
}

/**
 * The site's state of charge, below 100 %: a full battery is below no threshold, and the
 * simulator's is full around midday, so it is discharged a little first (and left to itself
 * again, Normal).
 */
async function socBelowFull(): Promise<number> {
  const headers = { authorization: basic() };
  const soc = async () =>
    Number(
      await (await fetch(`${site.url}/api/v1/metrics?topic=total/battery_state_of_charge&value=1`, { headers })).text(),
    );
  if ((await soc()) < 100) return soc();
  const write = async (name: string, value: string) => {
    const res = await fetch(`${site.url}/api/v1/metrics`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ topic: `inverter_1/${name}`, value }),
    });
    assert.equal(res.status, 200, `${name} = ${value}: ${await res.text()}`);
  };
  // Down to 90 % (a discharge stops at its target, 100 % by default).
  await write('battery_control_target_soc', '90');
  await write('battery_control_mode', 'Discharge');
  let now = 100;
  await pollUntil(
    async () => {
      now = await soc();
      return { done: now < 100, seen: now };
    },
    'the full battery discharged below 100 %',
    { ms: 60_000, everyMs: 500 },
  );
  await write('battery_control_mode', 'Normal');
  return now;
}
