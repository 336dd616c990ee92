// Site settings from the settings page: validated, saved atomically (other keys kept) and
// applied without a restart.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { jsonBody, startTestServer } from '../helpers/server.js';

const server = await startTestServer({
  bundled: ['simulator'],
  fixtures: ['site-echo'],
  plugins: [
    { id: 'sim', plugin: 'simulator', devices: ['inverter_1', 'battery_1'], config: { backfill_days: 0 } },
    { id: 'where', plugin: 'site-echo', devices: ['inverter_9'] },
  ],
  config: {
    $schema: './schema.json',
    site: { name: 'Roof', timeZone: 'Europe/Berlin' },
    history: { retentionDays: 30 },
  },
});
const configFile = join(server.dataDir, 'config.json');

type Issues = Array<{ path: Array<string | number>; message: string }>;
const put = (body: unknown) => server.api('/api/v1/config', { ...jsonBody(body), method: 'PUT' });

/** Resolves once `check` holds, re-checked at each plugin status change (plugins restart on a site change). */
function until(check: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    if (check()) return resolve();
    const listener = () => {
      if (!check()) return;
      server.plugins.off('status', listener);
      resolve();
    };
    server.plugins.on('status', listener);
  });
}

async function importPrices(): Promise<number[]> {
  const grid = (await (await server.api('/api/v1/grid')).json()) as { pricing: { slots: Array<{ price: number }> } };
  return grid.pricing.slots.map((slot) => slot.price);
}

test('GET /config: the site, energy, price and alert settings in force, the zone in force, and their JSON Schema', async () => {
  const res = await server.api('/api/v1/config');
  assert.equal(res.status, 200);
  const body = (await res.json()) as {
    site: unknown;
    energy: unknown;
    prices: unknown;
    alerts: unknown;
    time_zone: string;
    system_time_zone: string;
    schema: {
      properties: {
        site: { properties: { timeZone: { title: string; description: string } } };
        energy: { properties: { resetPeriod: { enumLabels: Record<string, string> } } };
        prices: unknown;
      };
    };
  };
  assert.deepEqual(body.site, {
    name: 'Roof',
    timeZone: 'Europe/Berlin',
    latitude: 52.52,
    longitude: 13.405,
    temperatureUnit: 'C',
  });
  assert.deepEqual(body.energy, { resetPeriod: 'weekly' });
  assert.deepEqual(body.prices, { multiplier: 1, offset: 0, exportPrice: null, source: null, fallbacks: [] });
  assert.deepEqual(body.alerts, { batteryBelowPercent: null, deviceUnavailableMinutes: null, writeRefused: true });
  assert.equal(body.time_zone, 'Europe/Berlin');
  // What a null zone would stand for: the zone of the process, whichever the site has chosen.
  assert.equal(body.system_time_zone, Intl.DateTimeFormat().resolvedOptions().timeZone);
  assert.deepEqual(Object.keys(body.schema.properties), ['site', 'energy', 'prices', 'forecast', 'alerts']);
  assert.match(body.schema.properties.site.properties.timeZone.description, /IANA time zone/);
  assert.equal(body.schema.properties.site.properties.timeZone.title, 'Time zone', 'a label for each field');
  assert.deepEqual(body.schema.properties.energy.properties.resetPeriod.enumLabels, {
    daily: 'Every day',
    weekly: 'Every week (Monday)',
    monthly: 'Every month (the 1st)',
  });
  assert.equal((await server.api('/api/v1/config', { auth: null })).status, 401);
});

test('a refused change names each bad field in plain words and changes nothing', async () => {
  const before = readFileSync(configFile, 'utf8');
  const res = await put({
    site: { latitude: 123, timeZone: 'Mars/Olympus' },
    energy: { resetPeriod: 'yearly' },
    history: {},
  });
  assert.equal(res.status, 400);
  const { issues } = (await res.json()) as { issues: Issues };
  assert.deepEqual(Object.fromEntries(issues.map((i) => [i.path.join('.'), i.message])), {
    'site.latitude': 'must be from -90 to 90 (degrees; south is negative)',
    'site.timeZone': 'an IANA time zone such as "Europe/Berlin"',
    'energy.resetPeriod': 'must be one of "daily", "weekly", "monthly"',
    history: 'is not a known field: remove it',
  });
  assert.equal(readFileSync(configFile, 'utf8'), before);
  assert.equal(server.config.site.latitude, 52.52);
});

test('new price multiplier and offset apply to /grid at once, and are saved keeping the other keys', async () => {
  const before = await importPrices();
  assert.ok(before.length > 0, 'the simulator publishes demo prices');
  const res = await put({ prices: { multiplier: 2, offset: 0.1 } });
  assert.equal(res.status, 200);
  assert.deepEqual(((await res.json()) as Record<string, unknown>).prices, {
    multiplier: 2,
    offset: 0.1,
    exportPrice: null,
    source: null,
    fallbacks: [],
  });
  const after = await importPrices();
  assert.deepEqual(
    after,
    before.map((p) => Math.round((p * 2 + 0.1) * 1e5) / 1e5),
  );
  assert.deepEqual(JSON.parse(readFileSync(configFile, 'utf8')), {
    $schema: './schema.json',
    site: { name: 'Roof', timeZone: 'Europe/Berlin' },
    history: { retentionDays: 30 },
    prices: { multiplier: 2, offset: 0.1 },
  });
});

test('a new time zone and location reach the plugins (ctx.site) without a restart', async () => {
  const res = await put({ site: { timeZone: 'America/New_York', latitude: 40.71 } });
  assert.equal(res.status, 200);
  await until(() => server.registry.get('inverter_9/site_time_zone')?.value === 'America/New_York');
  assert.equal(server.registry.get('inverter_9/site_latitude')!.value, 40.71);
  assert.equal(server.config.site.timeZone, 'America/New_York');
  const saved = JSON.parse(readFileSync(configFile, 'utf8')) as { site: unknown };
  assert.deepEqual(saved.site, { name: 'Roof', timeZone: 'America/New_York', latitude: 40.71 });
});

test('a new temperature unit relabels the forecast once the forecast plugin has fetched in it', async () => {
  await until(() => server.registry.get('weather/outside_temperature')?.meta.unit === '°C');
  const res = await put({ site: { temperatureUnit: 'F' } });
  assert.equal(res.status, 200);
  await until(
    () =>
      server.registry.get('weather/outside_temperature')?.meta.unit === '°F' &&
      server.plugins.status().find((s) => s.id === 'sim')!.state === 'running',
  );
});

test('each changed key is audited as config/<section.key>; unchanged keys are not', async () => {
  assert.equal((await put({ prices: { multiplier: 2 }, energy: { resetPeriod: 'daily' } })).status, 200);
  const audit = (await (await server.api('/api/v1/audit?limit=100')).json()) as Array<Record<string, unknown>>;
  const config = audit.filter((a) => String(a.topic).startsWith('config/')).reverse();
  assert.deepEqual(
    config.map((a) => [a.who, a.via, a.topic, a.old_value, a.new_value]),
    [
      ['admin', 'rest', 'config/prices.multiplier', '1', '2'],
      ['admin', 'rest', 'config/prices.offset', '0', '0.1'],
      ['admin', 'rest', 'config/site.timeZone', 'Europe/Berlin', 'America/New_York'],
      ['admin', 'rest', 'config/site.latitude', '52.52', '40.71'],
      ['admin', 'rest', 'config/site.temperatureUnit', 'C', 'F'],
      ['admin', 'rest', 'config/energy.resetPeriod', 'weekly', 'daily'],
    ],
  );
});

test('alerts: a threshold set with PUT /config applies at once, and a refused write turns its alert on', async () => {
  const alert = async (name: string) => await (await server.api(`/api/v1/metrics?topic=system/${name}&value=1`)).text();
  // A threshold just above the simulated battery's charge turns the alert on; 0 turns it off.
  const soc = Number(await (await server.api('/api/v1/metrics?topic=total/battery_state_of_charge&value=1')).text());
  assert.ok(soc < 99.5, `the simulated battery is at ${soc} %`);
  assert.equal((await put({ alerts: { batteryBelowPercent: soc + 0.5 } })).status, 200);
  assert.equal(await alert('alert_battery_low'), 'true');
  assert.match(await alert('alerts'), /^battery at [\d.]+ %, below [\d.]+ %/);
  assert.equal((await put({ alerts: { batteryBelowPercent: 0 } })).status, 200);
  assert.equal(await alert('alert_battery_low'), 'false');
  const refused = await server.api('/api/v1/metrics', {
    ...jsonBody({ topic: 'inverter_1/max_charge_current', value: '100000' }),
    method: 'POST',
  });
  assert.equal(refused.status, 422, await refused.text());
  assert.equal(await alert('alert_write_refused'), 'true');
  assert.match(await alert('alerts'), /write to inverter_1\/max_charge_current refused/);
  assert.equal((await put({ alerts: { batteryBelowPercent: null } })).status, 200);
});
