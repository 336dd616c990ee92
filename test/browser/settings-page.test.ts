import { test, after, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { loadPluginsFile } from '@heliograph/core/plugins/instances';
import { launchChromium } from './browser.js';
import { PASSWORD, startPageServer } from './harness.js';

// The settings page in Debian's chromium against a real app: the echo fixture plugin
// driving inverter_1 through a real PluginHost, TopicRegistry, WriteService and AuthService.

const browser = await launchChromium();
const server = await startPageServer();
after(async () => {
  await browser.close();
  await server.close();
});

/** A fresh tab (its own sessionStorage) whose timers the test moves by hand. */
async function openPage(t: TestContext, url = server.url): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const page = await context.newPage();
  page.setDefaultTimeout(5000);
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(err.message));
  t.after(async () => {
    await context.close();
    assert.deepEqual(errors, [], 'the page threw');
  });
  await page.clock.install();
  await page.goto(url);
  return page;
}

async function signIn(page: Page): Promise<void> {
  await page.getByLabel('Device password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Live metrics' }).waitFor();
}

/** The form around a labelled control. */
const formOf = (page: Page, label: string) => page.locator('form', { has: page.getByLabel(label) });

const valueCell = (page: Page, topic: string) => page.locator(`td[data-topic="${topic}"]`);

async function waitForText(page: Page, selector: string, text: string): Promise<void> {
  await page.waitForFunction(([s, t]) => document.querySelector(s!)?.textContent === t, [selector, text]);
}

test('a wrong password, no password set, and throttling each get a message that says what to do', async (t) => {
  const page = await openPage(t);
  const alert = page.getByRole('form', { name: 'Sign in' }).getByRole('alert');
  const attempt = async (password: string) => {
    await page.getByLabel('Device password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  };
  await attempt('not the password');
  await alert.filter({ hasText: 'Wrong password' }).waitFor();
  assert.equal(await page.getByRole('heading', { name: 'Live metrics' }).count(), 0);

  // The fifth failure from one address starts a back-off; even the right password waits.
  for (let failures = 2; failures <= 5; failures++) {
    await attempt(`guess ${failures}`);
    await alert.filter({ hasText: 'Wrong password' }).waitFor();
  }
  await attempt(PASSWORD);
  await alert.filter({ hasText: 'Too many failed sign-ins from this address. Wait 1 s before trying again.' }).waitFor();
  server.clock.advance(1000);
  await attempt(PASSWORD);
  await page.getByRole('heading', { name: 'Live metrics' }).waitFor();

  const fresh = await startPageServer({ password: null });
  t.after(() => fresh.close());
  const unset = await openPage(t, fresh.url);
  await unset.getByLabel('Device password').fill('anything at all');
  await unset.getByRole('button', { name: 'Sign in' }).click();
  const refused = unset.getByRole('form', { name: 'Sign in' }).getByRole('alert');
  await refused.filter({ hasText: 'No device password is set yet' }).waitFor();
  assert.match(await refused.innerText(), /run "heliograph password set"/);
});

test('signed in, the live table shows values grouped by device and follows the registry', async (t) => {
  const page = await openPage(t);
  await signIn(page);
  assert.equal(await page.locator('table.metrics caption').first().innerText(), 'Inverter 1');
  assert.equal(await valueCell(page, 'inverter_1/pv_power').innerText(), '1000');
  assert.equal(await valueCell(page, 'inverter_1/device_mode').innerText(), 'Solar');

  server.publish('inverter_1/pv_power', 1234.5);
  server.publish('inverter_1/device_mode', null);
  await page.clock.runFor(3000);
  await waitForText(page, 'td[data-topic="inverter_1/pv_power"]', '1234.5');
  await waitForText(page, 'td[data-topic="inverter_1/device_mode"]', '—');
  server.publish('inverter_1/pv_power', 1000);
  server.publish('inverter_1/device_mode', 'Solar');
});

test('a setting changed through its select is applied on the device and audited', async (t) => {
  const page = await openPage(t);
  await signIn(page);
  const form = formOf(page, 'Output source priority (Inverter 1)');
  await page.getByLabel('Output source priority').selectOption('SBU priority');
  await form.getByRole('button', { name: 'Save' }).click();
  await form.getByRole('status').filter({ hasText: 'Saved: SBU priority.' }).waitFor();
  const state = server.registry.get('inverter_1/output_source_priority')!;
  assert.equal(server.registry.visibleValue(state), 'SBU priority');
  await page.locator('table.audit tbody tr').first().filter({ hasText: 'inverter_1/output_source_priority' }).filter({ hasText: 'SBU priority' }).waitFor();

  const current = formOf(page, 'Max charge current (Inverter 1)');
  const input = page.getByLabel('Max charge current');
  assert.equal(await input.getAttribute('min'), '10');
  assert.equal(await input.getAttribute('max'), '120');
  assert.equal(await input.getAttribute('step'), '10');
  await input.fill('80');
  await current.getByRole('button', { name: 'Save' }).click();
  await current.getByRole('status').filter({ hasText: 'Saved: 80 A.' }).waitFor();
  assert.equal(server.registry.get('inverter_1/max_charge_current')!.value, 80);
});

test('a value the device refuses, or one out of range, shows the API message and changes nothing', async (t) => {
  const page = await openPage(t);
  await signIn(page);
  const topic = 'inverter_1/output_source_priority';
  const before = server.registry.get(topic)!.value;
  const form = formOf(page, 'Output source priority (Inverter 1)');
  await page.getByLabel('Output source priority').selectOption('Refuse me');
  await form.getByRole('button', { name: 'Save' }).click();
  await form.getByRole('alert').filter({ hasText: 'Not saved: the device refused: NAK' }).waitFor();
  assert.equal(server.registry.get(topic)!.value, before);

  const current = formOf(page, 'Max charge current (Inverter 1)');
  await page.getByLabel('Max charge current').fill('125');
  await current.getByRole('button', { name: 'Save' }).click();
  await current.getByRole('alert').filter({ hasText: 'Not saved: value "125" is not allowed; expected a number from 10 to 120 in steps of 10' }).waitFor();

  // The refusal came from the device, so the plugin's status shows it too.
  const card = page.getByRole('article', { name: 'Plugin instance e' });
  await card.locator('.badge').filter({ hasText: 'Failed' }).waitFor();
  assert.match(await card.innerText(), /write to inverter_1\/output_source_priority failed: the device refused: NAK|write to inverter_1\/output_source_priority.*NAK/);
});

test('a plugin config with a bad value shows the error naming the key; a good one is applied and saved', async (t) => {
  const page = await openPage(t);
  await signIn(page);
  const card = page.getByRole('article', { name: 'Plugin instance e' });
  const form = page.getByRole('form', { name: 'Config of e' });
  const port = page.getByLabel('port (e)', { exact: true });
  assert.equal(await port.inputValue(), '502', 'the default is shown');
  const fileBefore = readFileSync(server.pluginsFile, 'utf8');

  await port.fill('1.5');
  await form.getByRole('button', { name: 'Save config' }).click();
  const error = form.getByRole('alert');
  await error.filter({ hasText: 'config: port:' }).waitFor();
  assert.match(await error.innerText(), /config: port: .*(expected int|must be a whole number)/);
  assert.equal(readFileSync(server.pluginsFile, 'utf8'), fileBefore);

  await port.fill('503');
  await page.getByLabel('pv_power (e)', { exact: true }).fill('2500');
  await form.getByRole('button', { name: 'Save config' }).click();
  await page.getByRole('status').filter({ hasText: 'Saved. The plugin restarted with the new config.' }).waitFor();
  assert.deepEqual(server.host.describe('e')!.config, { pv_power: 2500, port: 503 });
  assert.deepEqual(loadPluginsFile(server.pluginsFile)[0]!.config, { pv_power: 2500, port: 503 });
  await waitForText(page, 'td[data-topic="inverter_1/pv_power"]', '2500');
  await card.locator('.badge').filter({ hasText: 'Running' }).waitFor();
  assert.match(await card.innerText(), /Last error\s+none/, 'the restart cleared the earlier failure');
  assert.equal(await page.getByLabel('port (e)', { exact: true }).inputValue(), '503', 'the form shows the saved config');

  const shot = process.env.HELIOGRAPH_SCREENSHOT;
  if (shot) {
    await page.screenshot({ path: shot, fullPage: true });
    t.diagnostic(`screenshot: ${shot}`);
  }
});

test('a password that stops working sends the page back to sign-in with a message', async (t) => {
  const page = await openPage(t);
  await signIn(page);
  await server.auth.setPassword('changed elsewhere');
  try {
    await page.clock.runFor(3000);
    await page.getByRole('form', { name: 'Sign in' }).getByRole('alert').filter({ hasText: 'no longer accepts the saved password' }).waitFor();
    assert.equal(await page.evaluate(() => sessionStorage.getItem('heliograph.password')), null, 'the stale password is forgotten');
  } finally {
    await server.auth.setPassword(PASSWORD);
  }
});
