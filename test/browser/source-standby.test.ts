import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { startSiteInBrowser } from './backfilled-site.js';
import { BROWSER_SKIP } from './browser.js';
import { openScreen, showScreen } from './page.js';

// Two price plugins and the owner's choice of one (config prices.source): the Plugins tab
// marks the other "Not in use", and the chosen one not; the Site tab changes the choice.

const { site, browser } = await startSiteInBrowser({
  plugins: [
    { id: 'tariff', plugin: 'fixed', config: { provider: 'Stadtwerke', currency: 'EUR', importPrice: 0.3 } },
    { id: 'offer', plugin: 'fixed', config: { provider: 'Other offer', currency: 'EUR', importPrice: 0.2 } },
  ],
  config: { prices: { source: 'offer' } },
});

test('a price plugin the owner did not choose is marked "Not in use"', { skip: BROWSER_SKIP }, async (t) => {
  const page = await openScreen(t, browser, site.url, 'plugins');
  const card = (id: string) => page.getByRole('article', { name: `Plugin instance ${id}` });
  await card('tariff').getByText('Not in use').waitFor({ timeout: 30_000 });
  assert.equal(await card('offer').getByText('Not in use').isVisible(), false, 'the chosen source is in use');
});

test(
  'the owner picks the price source on the Site tab; the other is then the one not in use',
  { skip: BROWSER_SKIP },
  async (t) => {
    const page = await openScreen(t, browser, site.url, 'site');
    const form = page.getByRole('form', { name: 'Site settings' });
    const source = form.getByLabel('Price source');
    assert.equal(await source.inputValue(), 'offer', 'the choice in force is shown');
    await source.selectOption('tariff');
    await form.getByLabel('Price fallbacks').fill('offer');
    await form.getByRole('button', { name: 'Save site settings' }).click();
    await form.getByRole('status').filter({ hasText: 'Saved and applied.' }).waitFor({ timeout: 30_000 });
    const saved = JSON.parse(readFileSync(`${site.dataDir}/config.json`, 'utf8')) as {
      prices: { source: unknown; fallbacks: unknown };
    };
    assert.deepEqual([saved.prices.source, saved.prices.fallbacks], ['tariff', ['offer']]);
    await showScreen(page, 'plugins');
    const card = (id: string) => page.getByRole('article', { name: `Plugin instance ${id}` });
    await card('tariff').waitFor({ timeout: 30_000 });
    // The card showed "Not in use" before the choice (the test above); now it goes.
    await card('tariff').getByText('Not in use').waitFor({ state: 'hidden', timeout: 30_000 });
    // Back to automatic: an empty choice is saved as null.
    await showScreen(page, 'site');
    await form.getByLabel('Price source').selectOption('');
    await form.getByRole('button', { name: 'Save site settings' }).click();
    await form.getByRole('status').filter({ hasText: 'Saved and applied.' }).waitFor({ timeout: 30_000 });
    const automatic = JSON.parse(readFileSync(`${site.dataDir}/config.json`, 'utf8')) as {
      prices: { source: unknown };
    };
    assert.equal(automatic.prices.source, null);
  },
);
