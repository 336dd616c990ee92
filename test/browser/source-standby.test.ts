import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { BROWSER_SKIP, launchChromium } from './browser.js';
import { openSignedIn, showScreen } from './page.js';
import { startSite, type Site } from './site.js';

// Two price plugins and the owner's choice of one (config prices.source): the Plugins tab
// marks the other "Not in use", and the chosen one not.

let browser: Browser;
let site: Site;
if (!BROWSER_SKIP) {
  site = await startSite({
    plugins: [
      { id: 'tariff', plugin: 'fixed', config: { provider: 'Stadtwerke', currency: 'EUR', importPrice: 0.3 } },
      { id: 'offer', plugin: 'fixed', config: { provider: 'Other offer', currency: 'EUR', importPrice: 0.2 } },
    ],
    config: { prices: { source: 'offer' } },
  });
  browser = await launchChromium();
  after(() => browser.close());
}

test('a price plugin the owner did not choose is marked "Not in use"', { skip: BROWSER_SKIP }, async (t) => {
  const page = await openSignedIn(t, browser, site.url);
  await showScreen(page, 'plugins');
  const card = (id: string) => page.getByRole('article', { name: `Plugin instance ${id}` });
  await card('tariff').getByText('Not in use').waitFor({ timeout: 30_000 });
  assert.equal(await card('offer').getByText('Not in use').isVisible(), false, 'the chosen source is in use');
});
