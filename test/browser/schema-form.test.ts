import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { launchChromium } from './browser.js';
import { startPageServer } from './harness.js';

// The config form generator, as the page loads it, in chromium: every kind of field a
// plugin schema produces (zod's own JSON Schema output), filled in and read back into a
// config that the same zod schema accepts.

const configSchema = z.object({
  host: z.string().describe('Address of the inverter'),
  port: z.number().int().min(1).max(65535).default(502),
  mode: z.enum(['tcp', 'rtu']).default('tcp'),
  enabled: z.boolean().default(true),
  api_key: z.string().nullable(),
  location: z.object({ latitude: z.number().min(-90).max(90), longitude: z.number() }),
  planes: z.array(z.object({ tilt: z.number(), azimuth: z.number() })),
  note: z.string().optional(),
});
const jsonSchema = z.toJSONSchema(configSchema, { io: 'input', unrepresentable: 'any' });
const config = { host: '192.168.1.20', api_key: null, location: { latitude: 48.1, longitude: 11.6 }, planes: [{ tilt: 30, azimuth: 180 }] };

const browser = await launchChromium();
const server = await startPageServer();
after(async () => {
  await browser.close();
  await server.close();
});

async function drawForm() {
  const page = await browser.newPage();
  page.setDefaultTimeout(5000);
  await page.goto(server.url);
  await page.evaluate(
    async ([schema, value]) => {
      const url = '/schema-form.js';
      const { configFields } = await import(url);
      const fields = configFields(schema, value, 'x');
      const form = document.createElement('form');
      form.id = 'under-test';
      form.append(fields.element);
      document.body.append(form);
      (window as unknown as { readForm: () => unknown }).readForm = () => fields.read();
    },
    [jsonSchema, config] as const,
  );
  const read = () => page.evaluate(() => (window as unknown as { readForm: () => unknown }).readForm());
  return { page, read };
}

test('each field shows the config in force, or the default, under a label naming its key', async (t) => {
  const { page } = await drawForm();
  t.after(() => page.close());
  assert.equal(await page.getByLabel('host (x)', { exact: true }).inputValue(), '192.168.1.20');
  assert.equal(await page.getByLabel('port (x)', { exact: true }).inputValue(), '502');
  assert.equal(await page.getByLabel('port (x)', { exact: true }).getAttribute('min'), '1');
  assert.equal(await page.getByLabel('port (x)', { exact: true }).getAttribute('step'), '1');
  assert.equal(await page.getByLabel('mode (x)', { exact: true }).locator('option:checked').innerText(), 'tcp');
  assert.equal(await page.getByLabel('enabled (x)', { exact: true }).isChecked(), true);
  assert.equal(await page.getByLabel('api_key (x)', { exact: true }).getAttribute('type'), 'password', 'secrets are not shown on screen');
  assert.equal(await page.getByLabel('location.latitude (x)', { exact: true }).inputValue(), '48.1');
  assert.equal(await page.getByLabel('location.latitude (x)', { exact: true }).getAttribute('max'), '90');
  assert.deepEqual(JSON.parse(await page.getByLabel('planes (x)', { exact: true }).inputValue()), [{ tilt: 30, azimuth: 180 }]);
  assert.equal(await page.getByLabel('note (x)', { exact: true }).inputValue(), '');
  assert.match(await page.locator('#under-test').innerText(), /Address of the inverter/);
});

test('what is read back is the edited config, and the plugin schema accepts it', async (t) => {
  const { page, read } = await drawForm();
  t.after(() => page.close());
  assert.deepEqual(await read(), { ok: true, present: true, value: { ...config, port: 502, mode: 'tcp', enabled: true } });

  await page.getByLabel('mode (x)', { exact: true }).selectOption('rtu');
  await page.getByLabel('enabled (x)', { exact: true }).uncheck();
  await page.getByLabel('api_key (x)', { exact: true }).fill('s3cret');
  await page.getByLabel('location.latitude (x)', { exact: true }).fill('-33.9');
  await page.getByLabel('planes (x)', { exact: true }).fill('[{"tilt": 20, "azimuth": 90}, {"tilt": 20, "azimuth": 270}]');
  await page.getByLabel('note (x)', { exact: true }).fill('garage');
  const edited = (await read()) as { ok: boolean; value: unknown };
  const expected = {
    host: '192.168.1.20',
    port: 502,
    mode: 'rtu',
    enabled: false,
    api_key: 's3cret',
    location: { latitude: -33.9, longitude: 11.6 },
    planes: [{ tilt: 20, azimuth: 90 }, { tilt: 20, azimuth: 270 }],
    note: 'garage',
  };
  assert.deepEqual(edited, { ok: true, present: true, value: expected });
  assert.equal(configSchema.safeParse(edited.value).success, true);

  // Emptied optional and nullable fields: left out, and null.
  await page.getByLabel('note (x)', { exact: true }).fill('');
  await page.getByLabel('api_key (x)', { exact: true }).fill('');
  const emptied = (await read()) as { value: Record<string, unknown> };
  assert.equal('note' in emptied.value, false);
  assert.equal(emptied.value.api_key, null);
});

test('JSON that does not parse is reported with the key, before anything is sent', async (t) => {
  const { page, read } = await drawForm();
  t.after(() => page.close());
  await page.getByLabel('planes (x)', { exact: true }).fill('[{"tilt": 20,');
  const result = (await read()) as { ok: boolean; message: string };
  assert.equal(result.ok, false);
  assert.match(result.message, /^planes: not valid JSON/);
});
