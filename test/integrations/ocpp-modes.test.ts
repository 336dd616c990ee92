// Each charging mode through the real socket (issue 42): the server on a manual clock, the
// emulated charge point on the same clock, a scripted site whose powers the test sets. The
// rules' decisions reach the charger as charging profiles; what the car draws is read from
// the emulator, never from the API.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { ManualClock } from '@heliograph/core/clock';
import { WriteService } from '@heliograph/core/testing';
import type { EmulatedChargePoint } from '@heliograph/plugin-ocpp/emulator';
import { pollUntil } from '../helpers/deadline.js';
import { jsonBody, startTestServer, type TestServer } from '../helpers/server.js';
import { bootedPoint, ocppEntry, PASSWORD_1, valueOf, valueWhen } from './ocpp-helpers.js';

const MINUTE = 60_000;
const LOAD_W = 600;

interface Site {
  server: TestServer;
  clock: ManualClock;
  point: EmulatedChargePoint;
  /** When the write path last finished a write (system clock). */
  lastWrittenAt: number;
  /** Topics with a write in flight or queued on the write path. */
  writesInFlight(): number;
}

/** A step is through when neither the write path nor the socket did anything for this long. */
const QUIET_MS = 40;

async function startSite(charger: Record<string, unknown> = {}): Promise<Site> {
  const clock = new ManualClock(Date.parse('2026-06-21T06:00:00Z'));
  const chargers = {
    charger_1: { chargePointId: 'CP1', password: PASSWORD_1, maxCurrentA: 16, phases: 3, ...charger },
  };
  const server = await startTestServer({
    plugins: [{ id: 'site', plugin: 'scripted-site', devices: ['inverter_1'] }, ocppEntry({ chargers }, ['charger_1'])],
    bundled: ['ocpp'],
    fixtures: ['scripted-site'],
    clock,
  });
  const point = await bootedPoint(server.url, () => clock.now());
  await point.plugIn();
  const writes = server.services.resolve(WriteService);
  const site = { server, clock, point, lastWrittenAt: 0, writesInFlight: () => writes.topicsWriting };
  writes.events.on('written', () => (site.lastWrittenAt = Date.now()));
  return site;
}

/** The site's powers now (grid from PV, the house and what the car draws), one registry tick. */
function publishSite(site: Site, pvW: number, batteryW = 0): void {
  const { registry } = site.server;
  const grid = LOAD_W + site.point.powerW + batteryW - pvW;
  registry.publish(registry.get('inverter_1/pv_power')!, pvW);
  registry.publish(registry.get('inverter_1/battery_power')!, batteryW);
  registry.publish(registry.get('inverter_1/grid_power')!, grid);
  registry.flush();
}

const limitSent = (server: TestServer) => server.registry.visibleValue(server.registry.get('charger_1/current_limit')!);

/**
 * Waits until the charger holds what the device last sent and no command came for a moment:
 * the rules' decision for this step has gone through the socket.
 */
async function settle(site: Site): Promise<void> {
  const began = Date.now();
  // A macrotask: what the site's tick set going (the rules, the write of current_limit) has started.
  await delay(1);
  await pollUntil(
    () => {
      site.point.tick();
      const sent = limitSent(site.server);
      const offered = site.point.offered();
      const holds = sent === null || (offered.source !== 'default' && offered.currentA === sent);
      const quiet =
        site.writesInFlight() === 0 &&
        Date.now() - Math.max(began, site.point.lastCallAt, site.lastWrittenAt) > QUIET_MS;
      return Promise.resolve({ done: holds && quiet, seen: { sent, offered } });
    },
    'the charger holding the last profile sent',
    { ms: 10_000, everyMs: 5 },
  );
}

/** One step of `ms` on both clocks: the site's powers, the charger's meter values, the decision. */
async function step(site: Site, ms: number, pvW: number, batteryW = 0): Promise<void> {
  site.clock.advance(ms);
  site.point.tick();
  await site.point.sendMeterValues(true);
  publishSite(site, pvW, batteryW);
  await settle(site);
}

async function write(server: TestServer, topic: string, value: string): Promise<void> {
  const answer = await server.api('/api/v1/metrics', jsonBody({ topic, value }));
  assert.equal(answer.status, 200, `${topic} = ${value}: ${await answer.text()}`);
}

test('off, now, min+pv and planned: the current each offers, and planned falls back when its lease lapses', async () => {
  const site = await startSite();
  const { server, point } = site;
  await step(site, 10_000, 0);

  await write(server, 'charger_1/mode', 'off');
  await step(site, 10_000, 0);
  assert.equal(point.offered().currentA, 0, 'off: no current');
  assert.equal(point.powerW, 0);
  assert.equal(point.status, 'SuspendedEVSE');
  assert.match(point.offered().source, /^Tx(Default)?Profile/, 'held by a profile of Heliograph, not the default');

  await write(server, 'charger_1/mode', 'now');
  for (let i = 0; i < 6; i++) await step(site, MINUTE, 0); // past any rest of the contactor
  assert.equal(point.offered().currentA, 16, 'now: the maximum');
  assert.equal(point.powerW, 16 * 3 * 230);
  assert.equal(point.status, 'Charging');

  await write(server, 'charger_1/mode', 'min+pv');
  await step(site, 10_000, 0);
  assert.equal(point.offered().currentA, 6, 'min+pv without surplus: the minimum, the grid tops up');

  await write(server, 'charger_1/mode', 'planned');
  await write(server, 'charger_1/planned_power', '6900');
  await step(site, 10_000, 0);
  assert.equal(point.offered().currentA, 10, "planned: the planner's 6.9 kW is 10 A on 3 phases");
  await valueWhen(server, 'charger_1/reason', (v) => /plan 6\.9 kW/.test(String(v)), 'the plan as the reason');

  // The planner's power is not renewed: after its 30 min it is gone, and the rules fall back.
  for (let i = 0; i < 31; i++) await step(site, MINUTE, 0);
  await delay(300);
  assert.equal(
    point.offered().currentA,
    6,
    `planned without a plan: min+pv; ${String(await valueOf(server, 'charger_1/reason'))} ${JSON.stringify(point.offered())}`,
  );
  await valueWhen(server, 'charger_1/reason', (v) => /no plan/.test(String(v)), 'no plan as the reason');

  // Every profile went out as an audited write of current_limit (via the plugin).
  const audit = (await (await server.api('/api/v1/audit?limit=1000')).json()) as Array<{
    topic: string;
    via: string;
    new_value: string;
    result: string;
  }>;
  const limits = audit.filter((e) => e.topic === 'charger_1/current_limit' && e.via === 'ocpp').map((e) => e.new_value);
  for (const value of ['0', '16', '6', '10'])
    assert.ok(limits.includes(value), `current_limit ${value} audited: ${limits.join(',')}`);
});

/** PV in W at minute `m` of the ramp: sunrise to 8 kW in an hour, an hour of sun with two 2-min clouds, sunset in an hour. */
function pvAt(m: number): number {
  if (m < 60) return (8000 * m) / 60;
  if (m < 120) return (m >= 80 && m < 82) || (m >= 100 && m < 102) ? 1000 : 8000;
  if (m < 180) return (8000 * (180 - m)) / 60;
  return 0;
}

test('pv follows a PV ramp: one start and one stop, clouds ridden out, the current following the surplus', async () => {
  const site = await startSite();
  const { point } = site;
  let starts = 0;
  let stops = 0;
  let charging = false;
  const atNoon: number[] = [];
  for (let s = 0; s <= 200 * 2; s++) {
    const minute = s / 2;
    await step(site, 30_000, pvAt(minute));
    const now = point.powerW > 0;
    if (now && !charging) starts++;
    if (!now && charging) stops++;
    charging = now;
    if (minute >= 70 && minute < 78) atNoon.push(point.offered().currentA);
  }
  assert.equal(starts, 1, 'one start: the contactor is not toggled by the ramp or the clouds');
  assert.equal(stops, 1, 'one stop, at sunset');
  // 8 kW of PV, 600 W of house: 7.4 kW is 10 A on 3 phases (10.7 rounded down).
  assert.ok(
    atNoon.every((a) => a === 10),
    `10 A at noon: ${atNoon.join(',')}`,
  );
  assert.ok(point.energyWh > 5000, `the car took the sun: ${Math.round(point.energyWh)} Wh`);
});

test('pv does not charge the car from the home battery unless the owner allows it', async () => {
  const site = await startSite();
  const { server, point } = site;
  // The battery discharges 6 kW and 5.4 kW go out to the grid: no PV surplus of the house's own.
  for (let i = 0; i < 8; i++) await step(site, 30_000, 0, -6000);
  assert.equal(point.powerW, 0, 'the battery does not feed the car');
  await delay(300); // the device's values go out at most every 200 ms
  assert.doesNotMatch(String(await valueOf(server, 'charger_1/reason')), /^PV surplus [1-9]/);
  await write(server, 'charger_1/allow_battery_to_car', 'ON');
  for (let i = 0; i < 8; i++) await step(site, 30_000, 0, -6000);
  assert.ok(
    point.powerW > 0,
    `allowed: the battery feeds the car; ${String(await valueOf(server, 'charger_1/reason'))} ${JSON.stringify(point.offered())}`,
  );
});

test('a charger that switches phases starts solar charging on one and goes to three when the sun carries them', async () => {
  const site = await startSite({ canSwitchPhases: true });
  const { point } = site;
  const seen: string[] = [];
  const note = () => {
    const { phases } = point.offered();
    const now = point.powerW > 0 ? `${phases}p` : 'off';
    if (seen[seen.length - 1] !== now) seen.push(now);
  };
  // 2.6 kW of sun (2 kW over the house): one phase only (3 x 6 A would need 4.1 kW).
  for (let i = 0; i < 8; i++) {
    await step(site, 30_000, 2600);
    note();
  }
  assert.equal(point.offered().phases, 1, `one phase on 2 kW: ${seen.join(' ')}`);
  assert.ok(point.powerW >= 6 * 230, `charging on one phase: ${point.powerW} W`);
  // 9 kW of sun: three phases, after the phase-up delay.
  for (let i = 0; i < 16; i++) {
    await step(site, 30_000, 9000);
    note();
  }
  assert.equal(point.offered().phases, 3, `three phases on 8.4 kW: ${seen.join(' ')}`);
  assert.deepEqual(seen, ['off', '1p', '3p'], 'one start, one switch up, no toggling');
});
