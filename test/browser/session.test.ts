import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { BROWSER_SKIP } from './browser.js';
import { chromiumForFile } from './backfilled-site.js';
import { openPage, openSignedIn, signIn } from './page.js';
import { basic, PASSWORD, startSite, type Site } from './site.js';

// Signing in holds a token, never the password; first run sets the password in the browser
// with the setup code from the service's log.

let browser: Browser;
let site: Site;
let fresh: Site;
if (!BROWSER_SKIP) {
  site = await startSite({ plugins: [] });
  fresh = await startSite({ plugins: [], password: null });
  browser = await chromiumForFile();
}

const tokens = async () =>
  (await (await fetch(`${site.url}/api/v1/tokens`, { headers: { authorization: basic() } })).json()) as Array<{
    id: string;
    name: string;
  }>;

test('a wrong password says so and keeps the page signed out', { skip: BROWSER_SKIP }, async (t) => {
  const page = await openPage(t, browser, site.url);
  await page.getByLabel('Device password').fill('not the password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('form', { name: 'Sign in' }).getByRole('alert').filter({ hasText: 'Wrong password' }).waitFor();
  assert.equal(await page.getByRole('navigation', { name: 'Screens' }).count(), 0);
});

test(
  'sign-in creates a revocable token for the page and stores only that; sign-out revokes it',
  { skip: BROWSER_SKIP },
  async (t) => {
    const page = await openSignedIn(t, browser, site.url);
    const stored = await page.evaluate((): Record<string, string> => ({ ...localStorage }));
    const all = JSON.stringify(stored) + JSON.stringify(await page.evaluate(() => ({ ...sessionStorage })));
    assert.equal(all.includes(PASSWORD), false, 'the password is not kept anywhere');
    const token = JSON.parse(stored['heliograph.token']!) as { id: string; token: string };
    assert.match(token.token, /^hg_/);
    const listed = (await tokens()).find((x) => x.id === token.id);
    assert.match(listed!.name, /^Settings page \(Chrome, .+\)$/);

    // Wrong passwords from elsewhere do not sign the page out: it never sends the password again.
    for (let i = 0; i < 3; i++)
      await fetch(`${site.url}/api/v1/metrics`, { headers: { authorization: basic('wrong guess') } });
    await page.reload();
    await page.getByRole('navigation', { name: 'Screens' }).waitFor();

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('form', { name: 'Sign in' }).waitFor();
    assert.equal(
      (await tokens()).some((x) => x.id === token.id),
      false,
      'the token is revoked',
    );
    assert.equal(await page.evaluate(() => localStorage.getItem('heliograph.token')), null);
  },
);

test('two sign-ins in the same second both get a token, the second numbered', { skip: BROWSER_SKIP }, async (t) => {
  // The pages' clocks stand at the same second, so both ask for the same name first.
  const at = new Date('2026-11-26T10:00:00Z');
  const pages = [await openPage(t, browser, site.url), await openPage(t, browser, site.url)];
  for (const page of pages) {
    await page.clock.setFixedTime(at);
    await page.reload();
    await signIn(page);
  }
  const ids = await Promise.all(
    pages.map(async (page) => {
      const stored = await page.evaluate(() => localStorage.getItem('heliograph.token'));
      return (JSON.parse(stored!) as { id: string }).id;
    }),
  );
  const names = (await tokens()).filter((x) => ids.includes(x.id)).map((x) => x.name);
  assert.equal(names.length, 2, 'each page holds a token of its own');
  const [first] = names.filter((n) => !n.endsWith(' 2'));
  assert.ok(first, `one name is the plain one: ${names.join(' / ')}`);
  assert.deepEqual(names.sort(), [first, `${first} 2`].sort());
});

test(
  'a page whose token was revoked elsewhere goes back to sign-in and says why',
  { skip: BROWSER_SKIP },
  async (t) => {
    const first = await browser.newContext();
    const signedIn = await first.newPage();
    await signedIn.goto(site.url);
    await signIn(signedIn);
    // The browser is closed, the token revoked meanwhile, and the page opened again later
    // with what the browser kept (an open page may notice the revocation by itself first).
    const kept = await first.storageState();
    await first.close();
    const { id } = JSON.parse(kept.origins[0]!.localStorage.find((e) => e.name === 'heliograph.token')!.value) as {
      id: string;
    };
    assert.equal(
      (await fetch(`${site.url}/api/v1/tokens/${id}`, { method: 'DELETE', headers: { authorization: basic() } }))
        .status,
      204,
    );
    const later = await browser.newContext({ storageState: kept });
    t.after(() => later.close());
    const page = await later.newPage();
    await page.goto(site.url);
    await page
      .getByRole('form', { name: 'Sign in' })
      .getByRole('alert')
      .filter({ hasText: 'signed out (its token was revoked or expired)' })
      .waitFor();
    assert.equal(
      await page.evaluate(() => localStorage.getItem('heliograph.token')),
      null,
      'the dead token is forgotten',
    );
  },
);

test(
  'first run sets the password with the setup code from the log, then the page is signed in',
  { skip: BROWSER_SKIP },
  async (t) => {
    const code = (await fresh.waitForLog(/setup code: ([A-Z0-9]{4}-[A-Z0-9]{4})/))[1]!;
    const page = await openPage(t, browser, fresh.url);
    const form = page.getByRole('form', { name: 'First start' });
    await form.waitFor();
    // A wrong code is refused at its field, and nothing is set.
    await page.getByLabel('Setup code').fill('AAAA-AAAA');
    await page.getByLabel('New device password').fill('a new password');
    await page.getByLabel('Repeat the password').fill('a new password');
    await page.getByRole('button', { name: 'Set password' }).click();
    await form.locator('[data-path="code"] .field-error').waitFor();
    assert.equal(
      ((await (await fetch(`${fresh.url}/api/v1/setup`)).json()) as { needs_setup: boolean }).needs_setup,
      true,
    );

    await page.getByLabel('Setup code').fill(code.toLowerCase());
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByRole('navigation', { name: 'Screens' }).waitFor();
    assert.equal(
      ((await (await fetch(`${fresh.url}/api/v1/setup`)).json()) as { needs_setup: boolean }).needs_setup,
      false,
    );
    assert.equal(
      (await fetch(`${fresh.url}/api/v1/metrics`, { headers: { authorization: basic('a new password') } })).status,
      200,
    );
    assert.equal((await page.evaluate(() => JSON.stringify({ ...localStorage }))).includes('a new password'), false);
  },
);

test('the theme switch sits beside the system default and is remembered', { skip: BROWSER_SKIP }, async (t) => {
  const page = await openSignedIn(t, browser, site.url);
  const theme = page.getByLabel('Theme');
  assert.equal(await theme.inputValue(), 'system');
  assert.equal(
    await page.evaluate(() => document.documentElement.dataset.theme ?? null),
    null,
    'the system default: no override',
  );
  await theme.selectOption('dark');
  assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'dark');
  await page.reload();
  await page.getByRole('navigation', { name: 'Screens' }).waitFor();
  assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'dark');
  assert.equal(await page.getByLabel('Theme').inputValue(), 'dark');
});
