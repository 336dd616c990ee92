import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startSiteInBrowser } from './backfilled-site.js';
import { BROWSER_SKIP } from './browser.js';
import { openScreen } from './page.js';
import { basic } from './site.js';

// The Devices screen against the simulator: identity apart from readings, settings written
// through controls that fit their type.

const { site, browser } = await startSiteInBrowser();

const valueOf = async (topic: string) =>
  (await fetch(`${site.url}/api/v1/metrics?topic=${topic}&value=1`, { headers: { authorization: basic() } })).text();

test(
  'each device card shows model, serial and firmware apart from its live readings',
  { skip: BROWSER_SKIP },
  async (t) => {
    const page = await openScreen(t, browser, site.url, 'devices');
    const card = page.getByRole('article', { name: 'Inverter 1' });
    await card.locator('dl.identity dd').filter({ hasText: 'Heliograph Sim 5K' }).waitFor();
    assert.match(await card.locator('dl.identity').innerText(), /Serial number\s+HGS\d{10}/);
    assert.equal(
      await card.locator('dl.readings').getByText('Heliograph Sim 5K').count(),
      0,
      'identity is not mixed into the readings',
    );
    // Signs in words: battery power says charging or discharging (or is 0 W).
    await page.waitForFunction(() =>
      /^(0 W|[\d.,]+ k?W (charging|discharging))$/.test(
        document.querySelector('dd[data-topic="battery_1/power"]')?.textContent ?? '',
      ),
    );
  },
);

test(
  'a setting chosen in its select and a number with its step are written to the device',
  { skip: BROWSER_SKIP },
  async (t) => {
    const page = await openScreen(t, browser, site.url, 'devices');
    const priority = page.locator('form[data-topic="inverter_1/output_source_priority"]');
    // The select is filled from the setting's declaration: wait for its choices before reading them.
    await priority.locator('option:not([disabled])').nth(1).waitFor({ state: 'attached', timeout: 30_000 });
    const options = await priority.locator('option:not([disabled])').allInnerTexts();
    const current = await valueOf('inverter_1/output_source_priority');
    const next = options.find((o) => o !== current)!;
    await page.getByLabel('Output source priority (Inverter 1)').selectOption(next);
    await priority.getByRole('button', { name: 'Save' }).click();
    await priority
      .getByRole('status')
      .filter({ hasText: `Saved: ${next}.` })
      .waitFor();
    assert.equal(await valueOf('inverter_1/output_source_priority'), next);

    const current2 = page.locator('form[data-topic="inverter_1/max_charge_current"]');
    const input = page.getByLabel('Max charge current (Inverter 1)');
    assert.equal(await input.getAttribute('step'), '10');
    assert.match(await current2.locator('.hint').innerText(), /10 to 120 A, in steps of 10/);
    await input.fill('80');
    await current2.getByRole('button', { name: 'Save' }).click();
    await current2.getByRole('status').filter({ hasText: 'Saved: 80 A.' }).waitFor();
    assert.equal(await valueOf('inverter_1/max_charge_current'), '80');

    await input.fill('125');
    await current2.getByRole('button', { name: 'Save' }).click();
    await current2
      .getByRole('alert')
      .filter({ hasText: /^Not saved: .*125/ })
      .waitFor();
    assert.equal(await valueOf('inverter_1/max_charge_current'), '80');
  },
);
