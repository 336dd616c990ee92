import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startSiteOnScreen } from './backfilled-site.js';
import { BROWSER_SKIP } from './browser.js';
import { basic } from './site.js';

// Access tokens on the Access screen against the real service: the secret is shown once,
// works as a bearer token, and stops working when revoked.

const { site, page } = await startSiteOnScreen('access', { plugins: [] }, {}, (context, site) =>
  context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: site.url }),
);

const bearer = (token: string) =>
  fetch(`${site.url}/api/v1/metrics`, { headers: { authorization: `Bearer ${token}` } });
const listed = async () =>
  (await (await fetch(`${site.url}/api/v1/tokens`, { headers: { authorization: basic() } })).json()) as Array<{
    name: string;
    expires_at: string | null;
  }>;
let secret = '';

test('a created token is shown once, copies, and works as a bearer token', { skip: BROWSER_SKIP }, async () => {
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
  await page.locator('.token-row').filter({ hasText: 'Home Assistant' }).filter({ hasText: 'expires never' }).waitFor();
  assert.equal(
    await page.locator('#tokens .token-rows').getByText(secret).count(),
    0,
    'the list never shows the secret',
  );
  await page.getByRole('button', { name: 'Done' }).click();
  assert.equal(await page.getByLabel('New access token').count(), 0, 'gone once dismissed');
  // The page's own token is in the list too, marked.
  await page.locator('.token-row').filter({ hasText: 'this page' }).filter({ hasText: 'Settings page' }).waitFor();
});

test('an expiry is sent as RFC 3339; a taken name shows the API message', { skip: BROWSER_SKIP }, async () => {
  await page.getByLabel('Token name').fill('script');
  await page.getByLabel('Expires (optional)').fill('2030-01-31T12:00');
  await page.getByRole('button', { name: 'Create token' }).click();
  await page.getByLabel('New access token').waitFor();
  const expected = await page.evaluate(() => new Date('2030-01-31T12:00').toISOString().replace(/\.\d{3}Z$/, 'Z'));
  assert.equal(
    (await listed()).find((t) => t.name === 'script')!.expires_at,
    expected,
    'the local time picked, in UTC',
  );
  await page.getByLabel('Token name').fill('Home Assistant');
  await page.getByRole('button', { name: 'Create token' }).click();
  await page
    .getByRole('form', { name: 'Create an access token' })
    .getByRole('alert')
    .filter({ hasText: 'Not created: a token named "Home Assistant" already exists' })
    .waitFor();
});

test('a revoked token stops working at once; revoking asks first', { skip: BROWSER_SKIP }, async () => {
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
  assert.equal(
    (await listed()).some((t) => t.name === 'Home Assistant'),
    false,
  );
});
