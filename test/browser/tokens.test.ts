import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { launchChromium } from './browser.js';
import { PASSWORD, startPageServer } from './harness.js';

// Access tokens on the settings page against the real AuthService: the secret is shown
// once, works as a bearer token, and stops working when revoked.

const browser = await launchChromium();
const server = await startPageServer();
after(async () => {
  await browser.close();
  await server.close();
});

const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
const page = await context.newPage();
page.setDefaultTimeout(5000);
await page.clock.install();
await page.goto(server.url);
await page.getByLabel('Device password').fill(PASSWORD);
await page.getByRole('button', { name: 'Sign in' }).click();
await page.getByRole('heading', { name: 'Access tokens' }).waitFor();

const bearer = (token: string) => fetch(`${server.url}/api/v1/metrics`, { headers: { authorization: `Bearer ${token}` } });
const tokenForm = page.getByRole('form', { name: 'Create an access token' });
const tokenRows = page.locator('#tokens tbody tr');
let secret = '';

test('a created token is shown once, copies, and works as a bearer token', async () => {
  await page.getByLabel('Token name').fill('Home Assistant');
  await page.getByRole('button', { name: 'Create token' }).click();
  const shown = page.getByLabel('New access token');
  await shown.waitFor();
  secret = await shown.inputValue();
  assert.match(secret, /^hg_[A-Za-z0-9_-]{43}$/);
  assert.match(await page.locator('.created-token').innerText(), /Copy it now: it is not shown again/);

  await page.getByRole('button', { name: 'Copy' }).click();
  await page.locator('.created-token').getByRole('status').filter({ hasText: 'Copied.' }).waitFor();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), secret);

  assert.equal((await bearer(secret)).status, 200);
  await tokenRows.filter({ hasText: 'Home Assistant' }).filter({ hasText: 'never' }).waitFor();
  assert.equal(await page.locator('#tokens').getByText(secret).count(), 0, 'the list never shows the secret');
  await page.getByRole('button', { name: 'Done' }).click();
  assert.equal(await page.getByLabel('New access token').count(), 0, 'gone once dismissed');
});

test('an expiry is sent as RFC 3339; a taken name shows the API message', async () => {
  await page.getByLabel('Token name').fill('script');
  await page.getByLabel('Expires (optional)').fill('2030-01-31T12:00');
  await page.getByRole('button', { name: 'Create token' }).click();
  await page.getByLabel('New access token').waitFor();
  const [created] = (await server.auth.listTokens()).filter((t) => t.name === 'script');
  const expected = await page.evaluate(() => new Date('2030-01-31T12:00').toISOString().replace(/\.\d{3}Z$/, 'Z'));
  assert.equal(created!.expires_at, expected, 'the local time picked, in UTC');
  await tokenRows.filter({ hasText: 'script' }).waitFor();
  assert.equal(await tokenRows.filter({ hasText: 'script' }).getByText('never').count(), 0);

  await page.getByLabel('Token name').fill('Home Assistant');
  await page.getByRole('button', { name: 'Create token' }).click();
  await tokenForm.getByRole('alert').filter({ hasText: 'Not created: a token named "Home Assistant" already exists' }).waitFor();
});

test('a revoked token stops working at once; revoking asks first', async () => {
  page.once('dialog', (dialog) => void dialog.dismiss());
  await page.getByRole('button', { name: 'Revoke token Home Assistant' }).click();
  assert.equal((await bearer(secret)).status, 200, 'dismissing the question keeps the token');

  page.once('dialog', (dialog) => {
    assert.match(dialog.message(), /Revoke the token "Home Assistant"\? Clients using it lose access at once/);
    void dialog.accept();
  });
  await page.getByRole('button', { name: 'Revoke token Home Assistant' }).click();
  await page.getByRole('button', { name: 'Revoke token Home Assistant' }).waitFor({ state: 'detached' });
  assert.equal((await bearer(secret)).status, 401);
  assert.deepEqual((await server.auth.listTokens()).map((t) => t.name), ['script']);
});
