import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { EmulatedChargePoint } from '@heliograph/plugin-ocpp/emulator';
import { BROWSER_SKIP } from './browser.js';
import { chromiumForFile } from './backfilled-site.js';
import { openSignedIn } from './page.js';
import { pluginsWhen, SIMULATOR, startSite, type Site } from './site.js';
import { ocppEntry, PASSWORD_1, pointWhen } from '../integrations/ocpp-helpers.js';

// The dashboard's loadpoint card (issue 42) against the real service with an emulated OCPP
// charge point: what the charger does now, why, the plan, and the mode changed on the page
// reaching the charger as the current it offers.

let browser: Browser;
let site: Site;
let point: EmulatedChargePoint;
if (!BROWSER_SKIP) {
  site = await startSite({
    plugins: [{ ...SIMULATOR, config: { backfill_days: 0, pollIntervalMs: 1000 } }, ocppEntry({}, ['charger_1'])],
  });
  // The service answers before its plugins have started: /ocpp exists once the ocpp plugin runs.
  await pluginsWhen(
    site,
    (list) => list.some((p) => p.id === 'ocpp' && p.state === 'running'),
    'the ocpp plugin running',
  );
  point = new EmulatedChargePoint({ url: `${site.url.replace(/^http/, 'ws')}/ocpp/CP1`, password: PASSWORD_1 });
  after(() => point.close());
  await point.start();
  await pointWhen(point, (p) => p.bootStatus === 'Accepted', 'boot');
  await point.plugIn();
  browser = await chromiumForFile();
}

test(
  'the loadpoint says what the charger does and why, and its mode changes the current',
  { skip: BROWSER_SKIP },
  async (t) => {
    const page = await openSignedIn(t, browser, site.url);
    const card = page.locator('#loadpoints-card');
    await card.waitFor();
    const loadpoint = card.locator('.loadpoint[data-device="charger_1"]');
    await loadpoint
      .locator('.loadpoint-now')
      .filter({ hasText: /Preparing|Charging|SuspendedEVSE/ })
      .waitFor();
    await loadpoint
      .locator('.loadpoint-reason')
      .filter({ hasText: /^Why: / })
      .waitFor();
    assert.equal(await loadpoint.locator('.loadpoint-plan').innerText(), 'Plan: no target');

    await page.getByLabel('Charging mode (Charger 1)').selectOption('now');
    await loadpoint.getByRole('button', { name: 'Save' }).click();
    await loadpoint.getByRole('status').filter({ hasText: 'Saved: now.' }).waitFor();
    await pointWhen(point, (p) => p.offered().currentA === 16 && p.status === 'Charging', 'charging at 16 A');
    await loadpoint
      .locator('.loadpoint-now')
      .filter({ hasText: /^Charging · 11(\.0)? kW/ })
      .waitFor({ timeout: 20_000 });
  },
);
