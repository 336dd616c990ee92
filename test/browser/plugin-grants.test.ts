// The owner approves a plugin's grants in the page. A third-party plugin
// (test/fixtures/plugins/acme-link, installed in node_modules) asks to change a battery's
// control settings and to reach one host: the add dialog lists both in words, unticked; the
// owner ticks one and the instance gets exactly that; its card says "1 of 2 approved"; "Edit
// permissions" approves the second, and the instance restarts with both.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { startChildServer, type ChildServer } from '../helpers/child-server.js';
import { BROWSER_SKIP } from './browser.js';
import { chromiumForFile } from './backfilled-site.js';
import { openScreen, screenshot } from './page.js';
import { PASSWORD } from './site.js';
import type { Browser, Page } from 'playwright-core';

const WRITE = 'battery_1/battery_control_*';
const HOST = 'api.acme.example';
/** The fixture's line at each start of its instance. */
const STARTED = /\[plugin:acme-link\] linked as home/;

let server!: ChildServer;
let browser!: Browser;
if (!BROWSER_SKIP) {
  server = await startChildServer({
    bundled: ['simulator'],
    external: ['acme-link'],
    plugins: [{ id: 'sim', plugin: 'simulator', devices: ['inverter_1', 'battery_1'], config: { backfill_days: 0 } }],
    password: PASSWORD,
    env: { HELIOGRAPH_LOG_LEVEL: 'info', HELIOGRAPH_MDNS: '0' },
  });
  after(() => server.stop());
  browser = await chromiumForFile();
}

type Grants = { writes?: string[]; prices?: boolean; forecast?: boolean; hosts?: string[] };

async function grantsOf(id: string): Promise<{ requested: Grants; approved: Grants } | undefined> {
  const list = (await (await server.api('/api/v1/plugins')).json()) as {
    id: string;
    grants?: { requested: Grants; approved: Grants };
  }[];
  return list.find((p) => p.id === id)?.grants;
}

/** The saved plugins.json entry of `id`. */
function savedEntry(id: string): { grants?: Grants } | undefined {
  const saved = JSON.parse(readFileSync(server.pluginsFile, 'utf8')) as { plugins: { id: string; grants?: Grants }[] };
  return saved.plugins.find((p) => p.id === id);
}

async function choosePlugin(page: Page, label: string): Promise<void> {
  await page.getByLabel('Plugin', { exact: true }).selectOption({ label });
}

test(
  "the add dialog shows a plugin's permissions in words, ticked for a bundled plugin and not for a third-party one",
  { skip: BROWSER_SKIP },
  async (t) => {
    const page = await openScreen(t, browser, server.url, 'plugins');

    await choosePlugin(page, 'Simulator (inverter)');
    const simBox = page.getByRole('group', { name: 'Permissions' });
    assert.equal(await simBox.getByLabel('Publish grid prices').isChecked(), true);
    assert.equal(await simBox.getByLabel('Publish the PV forecast').isChecked(), true);

    await choosePlugin(page, 'Acme Link (integration)');
    const box = page.getByRole('group', { name: 'Permissions' });
    assert.deepEqual(await box.locator('label').allInnerTexts(), [`Change settings of ${WRITE}`, `Reach ${HOST}`]);
    for (const input of await box.locator('input').all()) assert.equal(await input.isChecked(), false);
    assert.match(await box.innerText(), /does not ship with Heliograph/);
    await screenshot(page, 'plugin-grants-add');
  },
);

test(
  'the owner approves one grant when adding, then the second with "Edit permissions"; the instance restarts with both',
  { skip: BROWSER_SKIP },
  async (t) => {
    const page = await openScreen(t, browser, server.url, 'plugins');
    await choosePlugin(page, 'Acme Link (integration)');
    const form = page.locator('form.config-form').filter({ has: page.getByLabel('Instance name') });
    await form.getByLabel(`Change settings of ${WRITE}`).check();
    await form.getByRole('button', { name: 'Add plugin' }).click();

    const card = page.getByRole('article', { name: 'Plugin instance acme-link' });
    await card.locator('.badge').filter({ hasText: 'Running' }).waitFor({ timeout: 30_000 });
    assert.deepEqual(await grantsOf('acme-link'), {
      requested: { writes: [WRITE], hosts: [HOST] },
      approved: { writes: [WRITE] },
    });
    assert.deepEqual(savedEntry('acme-link')?.grants, { writes: [WRITE] });
    const permissions = card.locator('dl.facts div').filter({ has: page.locator('dt', { hasText: 'Permissions' }) });
    await permissions.locator('dd').filter({ hasText: '1 of 2 approved' }).waitFor();
    const firstStart = server.output().search(STARTED);
    assert.ok(firstStart >= 0, 'the instance started');

    await card.getByText('Edit permissions').click();
    const edit = card.getByRole('form', { name: 'Permissions of acme-link' });
    assert.equal(await edit.getByLabel(`Change settings of ${WRITE}`).isChecked(), true, 'what is approved now');
    assert.equal(await edit.getByLabel(`Reach ${HOST}`).isChecked(), false);
    await screenshot(page, 'plugin-grants-edit');
    await edit.getByLabel(`Reach ${HOST}`).check();
    await edit.getByRole('button', { name: 'Save permissions' }).click();
    await edit.getByRole('status').filter({ hasText: 'Saved. The plugin restarts' }).waitFor({ timeout: 30_000 });

    await server.waitFor(STARTED, 'the instance started again with its new grants', firstStart + 1);
    await permissions.locator('dd').filter({ hasText: '2 of 2 approved' }).waitFor();
    await card.locator('.badge').filter({ hasText: 'Running' }).waitFor({ timeout: 30_000 });
    assert.deepEqual((await grantsOf('acme-link'))?.approved, { writes: [WRITE], hosts: [HOST] });
    assert.deepEqual(savedEntry('acme-link')?.grants, { writes: [WRITE], hosts: [HOST] });
  },
);

// The instance added above tried, at each start, a write none of its grants covers.
test('a write outside its grants reads as a refusal in the audit list, in words', { skip: BROWSER_SKIP }, async (t) => {
  const page = await openScreen(t, browser, server.url, 'access');
  const entry = page.locator('ol.audit li').filter({ hasText: 'GRANT_MISSING' }).first();
  await entry.waitFor();
  await screenshot(page, 'audit-grant-missing');
  const text = await entry.innerText();
  assert.match(text, /plugins\/acme-link/);
  assert.match(text, /refused/);
  assert.match(text, /ctx\.site\.write inverter_1\/max_charge_current/);
  assert.match(text, /GRANT_MISSING: writing inverter_1\/max_charge_current needs a grant/);
  assert.match(text, /plugin:acme-link · plugin acme-link/);
  assert.doesNotMatch(text, /[{}[\]]/, 'no raw JSON');
});
