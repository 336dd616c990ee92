import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { startBackfilledSite } from './backfilled-site.js';
import { BROWSER_SKIP } from './browser.js';
import { openScreen } from './page.js';

// The Plugins and Site screens against the real service.

const { site, browser } = await startBackfilledSite();
const pluginsFile = () => readFileSync(site.pluginsFile, 'utf8');
/** The instances plugins.json holds now. */
const savedPlugins = () =>
  (JSON.parse(pluginsFile()) as { plugins: Array<{ id: string; config: Record<string, unknown> }> }).plugins;

test(
  'a config edit with a bad value is refused with the reason and saves nothing; a good one is applied',
  { skip: BROWSER_SKIP },
  async (t) => {
    const page = await openScreen(t, browser, site.url, 'plugins');
    const card = page.getByRole('article', { name: 'Plugin instance sim' });
    await card.locator('.badge').filter({ hasText: 'Running' }).waitFor({ timeout: 30_000 });
    await card.getByText('Edit config').click();
    const form = page.getByRole('form', { name: 'Config of sim' });
    // By key, not label: the label is the schema's title where the plugin gives one.
    const interval = form.locator('[data-path="pollIntervalMs"] input');
    assert.equal(await interval.inputValue(), '1000', 'the config in force');
    assert.match(
      await form.locator('[data-path="pollIntervalMs"] .hint').innerText(),
      /A whole number, from 1[,.]?000 to 600[,.]?000/,
    );
    const before = pluginsFile();

    await interval.fill('10');
    await form.getByRole('button', { name: 'Save config' }).click();
    await form.locator('.message.error').waitFor();
    assert.match(await form.innerText(), /pollIntervalMs|Poll interval|1000/);
    assert.equal(pluginsFile(), before, 'nothing saved');

    await interval.fill('2000');
    await form.getByRole('button', { name: 'Save config' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved. The plugin restarts' }).waitFor();
    assert.equal(savedPlugins()[0]!.config.pollIntervalMs, 2000);
    await card.locator('.badge').filter({ hasText: 'Running' }).waitFor({ timeout: 30_000 });
  },
);

test(
  'a plugin added with a bad value shows the error at the field and saves nothing; a good one starts',
  { skip: BROWSER_SKIP },
  async (t) => {
    const page = await openScreen(t, browser, site.url, 'plugins');
    await page
      .getByLabel('Plugin', { exact: true })
      .selectOption({ label: 'Simulator (inverter)' })
      .catch(async () => {
        const label = (await page.getByLabel('Plugin', { exact: true }).locator('option').allInnerTexts()).find((o) =>
          /simulator/i.test(o),
        )!;
        await page.getByLabel('Plugin', { exact: true }).selectOption({ label });
      });
    const form = page.locator('form.config-form').filter({ has: page.getByLabel('Instance name') });
    await form.getByLabel('Instance name').fill('sim2');
    await form.getByLabel('Devices').fill('inverter_3');
    const interval = form.locator('[data-path="pollIntervalMs"] input');
    await interval.fill('10');
    const before = pluginsFile();
    await form.getByRole('button', { name: 'Add plugin' }).click();
    const error = form.locator('[data-path="pollIntervalMs"] .field-error');
    await error.waitFor();
    assert.match(await error.innerText(), /1[,.]?000/);
    assert.equal(await interval.getAttribute('aria-invalid'), 'true');
    assert.equal(pluginsFile(), before, 'nothing saved');

    await interval.fill('2000');
    await form.getByRole('button', { name: 'Add plugin' }).click();
    const card = page.getByRole('article', { name: 'Plugin instance sim2' });
    await card.locator('.badge').filter({ hasText: 'Running' }).waitFor({ timeout: 30_000 });
    assert.ok(savedPlugins().some((p) => p.id === 'sim2'));

    // Disable, enable, remove.
    await card.getByLabel('Enabled').uncheck();
    await card.locator('.badge').filter({ hasText: 'Stopped' }).waitFor();
    await card.getByLabel('Enabled').check();
    await card.locator('.badge').filter({ hasText: 'Running' }).waitFor({ timeout: 30_000 });
    page.once('dialog', (d) => void d.accept());
    await card.getByRole('button', { name: 'Remove' }).click();
    await card.waitFor({ state: 'detached' });
    assert.equal(
      savedPlugins().some((p) => p.id === 'sim2'),
      false,
    );
  },
);

test('site settings are saved and a bad value is refused at its field', { skip: BROWSER_SKIP }, async (t) => {
  const page = await openScreen(t, browser, site.url, 'site');
  const form = page.getByRole('form', { name: 'Site settings' });
  await form.getByLabel('Latitude').fill('123');
  await form.getByRole('button', { name: 'Save site settings' }).click();
  await form.locator('[data-path="site.latitude"] .field-error').waitFor();
  await form.getByLabel('Latitude').fill('48.1');
  await form.getByLabel('Price multiplier').fill('1.19');
  await form.getByRole('button', { name: 'Save site settings' }).click();
  await form.getByRole('status').filter({ hasText: 'Saved and applied.' }).waitFor();
  const saved = JSON.parse(readFileSync(`${site.dataDir}/config.json`, 'utf8')) as {
    site: { latitude: unknown };
    prices: { multiplier: unknown };
  };
  assert.equal(saved.site.latitude, 48.1);
  assert.equal(saved.prices.multiplier, 1.19);
});
