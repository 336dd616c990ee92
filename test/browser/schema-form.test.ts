import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import type { Browser, Page } from 'playwright-core';
import { BROWSER_SKIP } from './browser.js';
import { chromiumForFile } from './backfilled-site.js';
import { bundleWebModules } from './web-bundle.js';

// The config form generator in chromium, bundled on its own from web/src/forms: every kind of
// field a plugin schema produces (zod's own JSON Schema output), labelled in words, filled
// in and read back into a config that the same zod schema accepts.

const configSchema = z.object({
  host: z.string().describe('Address of the inverter'),
  port: z.number().int().min(1).max(65535).default(502),
  pollIntervalMs: z.number().int().positive().default(5000),
  mode: z.enum(['tcp', 'rtu']).default('tcp'),
  enabled: z.boolean().default(true),
  api_key: z.string().nullable(),
  location: z.object({ latitude: z.number().min(-90).max(90), longitude: z.number() }),
  planes: z.array(z.object({ tilt: z.number(), azimuth: z.number() })),
  peaks: z.union([z.number(), z.array(z.number())]).default([5000, 3000]),
  note: z.string().optional(),
});
const jsonSchema = z.toJSONSchema(configSchema, { io: 'input', unrepresentable: 'any' });
const config = {
  host: '192.168.1.20',
  api_key: null,
  location: { latitude: 48.1, longitude: 11.6 },
  planes: [{ tilt: 30, azimuth: 180 }],
};

let browser: Browser;
let bundle = '';
if (!BROWSER_SKIP) {
  bundle = await bundleWebModules('SchemaForm', "export * from './forms/schema-form.ts';");
  browser = await chromiumForFile();
}

async function drawForm(t: { after(fn: () => Promise<void>): void }) {
  const page: Page = await browser.newPage();
  t.after(() => page.close());
  await page.setContent('<!doctype html><form id="under-test"></form>');
  await page.addScriptTag({ content: bundle });
  await page.evaluate(
    ([schema, value]) => {
      const api = (
        window as unknown as {
          SchemaForm: { configFields(s: unknown, v: unknown, x: string): { element: HTMLElement; read(): unknown } };
        }
      ).SchemaForm;
      const fields = api.configFields(schema, value, 'x');
      document.getElementById('under-test')!.append(fields.element);
      (window as unknown as { readForm: () => unknown }).readForm = () => fields.read();
    },
    [jsonSchema, config] as const,
  );
  const read = () => page.evaluate(() => (window as unknown as { readForm: () => unknown }).readForm());
  return { page, read };
}

test(
  'fields are labelled in words, show the config in force or the default, and say their range',
  { skip: BROWSER_SKIP },
  async (t) => {
    const { page } = await drawForm(t);
    assert.equal(await page.getByLabel('Host (x)', { exact: true }).inputValue(), '192.168.1.20');
    assert.equal(await page.getByLabel('Port (x)', { exact: true }).inputValue(), '502');
    assert.equal(await page.getByLabel('Port (x)', { exact: true }).getAttribute('step'), '1');
    assert.match(await page.locator('[data-path="port"] .hint').innerText(), /A whole number, from 1 to 65[,.]?535/);
    assert.match(
      await page.locator('[data-path="pollIntervalMs"] .hint').innerText(),
      /more than 0/,
      'positive() is "more than 0", not "0 to …"',
    );
    assert.equal(await page.getByLabel('Poll interval (ms) (x)', { exact: true }).inputValue(), '5000');
    assert.equal(await page.getByLabel('Mode (x)', { exact: true }).locator('option:checked').innerText(), 'Tcp');
    assert.equal(await page.getByRole('switch', { name: 'Enabled (x)' }).isChecked(), true);
    assert.equal(
      await page.getByLabel('API key (x)', { exact: true }).getAttribute('type'),
      'password',
      'secrets are not shown on screen',
    );
    assert.equal(await page.getByLabel('Latitude (x)', { exact: true }).inputValue(), '48.1');
    // Lists are fieldsets of fields, one per item, not JSON.
    assert.equal(
      await page.locator('fieldset[data-path="planes"] [data-path="planes.0.tilt"] input').inputValue(),
      '30',
    );
    assert.equal(await page.locator('fieldset[data-path="peaks"] input').count(), 2);
    assert.equal(await page.locator('textarea').count(), 0);
    assert.match(await page.locator('#under-test').innerText(), /Address of the inverter/);
  },
);

test('what is read back is the edited config, and the plugin schema accepts it', { skip: BROWSER_SKIP }, async (t) => {
  const { page, read } = await drawForm(t);
  assert.deepEqual(await read(), {
    ok: true,
    present: true,
    value: { ...config, port: 502, pollIntervalMs: 5000, mode: 'tcp', enabled: true, peaks: [5000, 3000] },
  });

  await page.getByLabel('Mode (x)', { exact: true }).selectOption({ label: 'Rtu' });
  await page.getByRole('switch', { name: 'Enabled (x)' }).uncheck();
  await page.getByLabel('API key (x)', { exact: true }).fill('s3cret');
  await page.getByRole('button', { name: 'Add to Planes' }).click();
  await page.locator('[data-path="planes.1.tilt"] input').fill('20');
  await page.locator('[data-path="planes.1.azimuth"] input').fill('270');
  await page.getByRole('button', { name: 'Remove item 2 of Peaks' }).click();
  await page.getByLabel('Note (x)', { exact: true }).fill('garage');
  const edited = (await read()) as { ok: boolean; value: unknown };
  assert.deepEqual(edited.value, {
    host: '192.168.1.20',
    port: 502,
    pollIntervalMs: 5000,
    mode: 'rtu',
    enabled: false,
    api_key: 's3cret',
    location: { latitude: 48.1, longitude: 11.6 },
    planes: [
      { tilt: 30, azimuth: 180 },
      { tilt: 20, azimuth: 270 },
    ],
    peaks: [5000],
    note: 'garage',
  });
  assert.equal(configSchema.safeParse(edited.value).success, true);

  await page.getByLabel('Note (x)', { exact: true }).fill('');
  await page.getByLabel('API key (x)', { exact: true }).fill('');
  const emptied = (await read()) as { value: Record<string, unknown> };
  assert.equal('note' in emptied.value, false);
  assert.equal(emptied.value.api_key, null);
});

test(
  'a required text left empty is reported at its field path before anything is sent',
  { skip: BROWSER_SKIP },
  async (t) => {
    const { page, read } = await drawForm(t);
    await page.getByLabel('Host (x)', { exact: true }).fill('');
    assert.deepEqual(await read(), { ok: false, issues: [{ path: ['host'], message: 'Required: enter a value.' }] });
  },
);
