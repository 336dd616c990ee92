import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { within } from '../helpers/deadline.js';
import { startSiteOnScreen } from './backfilled-site.js';
import { BROWSER_SKIP } from './browser.js';
import { restoredShown } from './page.js';
import { basic } from './site.js';

// Restore from the backups list on the Access screen against the real service (a child
// process): each row has a Restore button that asks first, in words, then shows the service's
// refusal of a damaged file or, for a good one, the staged answer while the service restarts
// on the backup's data, and the restored outcome once it is back.

const { site, page } = await startSiteOnScreen('access', { plugins: [] });

const admin = (path: string, init: RequestInit = {}) =>
  fetch(`${site.url}/api/v1${path}`, {
    ...init,
    headers: { authorization: basic(), 'content-type': 'application/json', ...init.headers },
  });
const tokenNames = async () => ((await (await admin('/tokens')).json()) as Array<{ name: string }>).map((t) => t.name);
const row = (name: string) => page.locator('#backups .backup-row').filter({ hasText: name });
const CUT = 'heliograph-2026-01-01T00-00-00Z-manual.backup';

test(
  'Restore on a row asks first, shows a refusal in the service’s words, or the staged answer and the restored data',
  { skip: BROWSER_SKIP },
  async () => {
    // Made after the page signed in, so the page's token comes back with the backup.
    await page.getByRole('button', { name: 'Back up now' }).click();
    await page.locator('#backups').getByRole('status').filter({ hasText: 'Backup written' }).waitFor();
    const { backups } = (await (await admin('/backups')).json()) as { backups: Array<{ name: string }> };
    const name = backups[0]!.name;
    const file = join(site.dataDir, 'backups', name);
    // A copy cut short in the folder (as an interrupted copy leaves one), listed beside it.
    writeFileSync(join(site.dataDir, 'backups', CUT), readFileSync(file).subarray(0, 4096));
    assert.equal((await admin('/tokens', { method: 'POST', body: '{"name":"after","scope":"read"}' })).status, 201);
    assert.ok((await tokenNames()).includes('after'));

    // Declined: nothing is asked of the service.
    await page.getByRole('button', { name: 'Back up now' }).click();
    await row(CUT).waitFor();
    const dialog = new Promise<string>((resolve) =>
      page.once('dialog', (shown) => {
        resolve(shown.message());
        void shown.dismiss();
      }),
    );
    await row(name)
      .getByRole('button', { name: `Restore backup ${name}` })
      .click();
    const asked = await within(dialog, 'the confirm step of Restore');
    assert.ok(!existsSync(join(site.dataDir, 'restore-pending.backup')), 'declined: nothing staged');
    assert.match(asked, /The service restarts on this backup's data/);
    assert.match(asked, /what is there now is kept aside on the device as heliograph\.db\.before-restore-<time>/);

    page.once('dialog', (dialog) => void dialog.accept());
    await row(CUT)
      .getByRole('button', { name: `Restore backup ${CUT}` })
      .click();
    await page
      .locator('#backups')
      .getByRole('alert')
      .filter({ hasText: `Not restored: the backup ${CUT}: the backup is cut short` })
      .waitFor();

    page.once('dialog', (dialog) => void dialog.accept());
    const [answer] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST' && r.url().endsWith(`/${name}/restore`)),
      row(name)
        .getByRole('button', { name: `Restore backup ${name}` })
        .click(),
    ]);
    assert.equal(answer.status(), 202);
    await page
      .locator('#backups')
      .getByRole('status')
      .filter({ hasText: 'The backup passed the checks; the service is restarting to put it in place' })
      .waitFor();
    await restoredShown(page);
    assert.ok(!(await tokenNames()).includes('after'), 'the data is the backup’s again');
    await row(name).waitFor();
  },
);
