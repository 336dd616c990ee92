import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../helpers/server.js';
import { startSiteOnScreen } from './backfilled-site.js';
import { BROWSER_SKIP } from './browser.js';
import { axeViolations, horizontalOverflow, restoredShown } from './page.js';
import { basic } from './site.js';

// Backups on the Access screen against the real service (a child process): "Back up now"
// lists a new backup, Download saves the very file, Delete removes it, a file that is not a
// backup is refused with the service's words, and a good one is restored while the page
// waits for the service to restart.

const { site, page } = await startSiteOnScreen('access', { plugins: [] }, { acceptDownloads: true });

const listed = async () =>
  (
    (await (await fetch(`${site.url}/api/v1/backups`, { headers: { authorization: basic() } })).json()) as {
      backups: Array<{ name: string }>;
    }
  ).backups.map((b) => b.name);
const rows = () => page.locator('#backups .backup-row');

test('Back up now lists the backup; Download saves the file as written', { skip: BROWSER_SKIP }, async () => {
  await page.locator('#backups').getByText('No backups yet.').waitFor();
  await page.getByRole('button', { name: 'Back up now' }).click();
  await page.locator('#backups').getByRole('status').filter({ hasText: 'Backup written' }).waitFor();
  await rows().filter({ hasText: 'Made by hand' }).waitFor();
  const [name] = await listed();
  assert.ok(name, 'the service lists it');

  const [saved] = await Promise.all([
    page.waitForEvent('download'),
    rows().getByRole('link', { name: 'Download' }).click(),
  ]);
  assert.equal(saved.suggestedFilename(), name);
  const file = join(tempDir(), 'downloaded.backup');
  await saved.saveAs(file);
  assert.deepEqual(readFileSync(file), readFileSync(join(site.dataDir, 'backups', name)), 'the very file');
  assert.deepEqual(await horizontalOverflow(page), [], 'nothing sticks out on a phone');
  assert.deepEqual(await axeViolations(page), []);
});

test('a file that is not a backup is refused in the service’s words', { skip: BROWSER_SKIP }, async () => {
  page.once('dialog', (dialog) => void dialog.accept());
  await page.getByLabel('Backup file to restore').setInputFiles({
    name: 'notes.txt',
    mimeType: 'text/plain',
    buffer: Buffer.from('not a backup at all'),
  });
  await page.getByRole('button', { name: 'Restore…' }).click();
  await page
    .getByRole('alert')
    .filter({ hasText: /Not restored: the uploaded file is not a backup file/ })
    .waitFor();
  assert.ok(!readdirSync(site.dataDir).includes('restore-pending.backup'), 'nothing staged');
});

test(
  'a good backup is restored while the page waits for the restart; Delete removes a backup',
  { skip: BROWSER_SKIP },
  async () => {
    const [name] = await listed();
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByLabel('Backup file to restore').setInputFiles(join(site.dataDir, 'backups', name!));
    await page.getByRole('button', { name: 'Restore…' }).click();
    // The backup was made after this page signed in, so its token comes back with it.
    await restoredShown(page);

    page.once('dialog', (dialog) => void dialog.accept());
    await rows()
      .first()
      .getByRole('button', { name: /^Delete/ })
      .click();
    await page.locator('#backups').getByText('No backups yet.').waitFor();
    assert.deepEqual(await listed(), []);
  },
);
