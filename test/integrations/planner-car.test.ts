// One plan for the house (issue 42 item 4): the real server on a manual clock with the
// simulator (prices cheapest in the small hours, a winter night), the active planner and the
// OCPP plugin with an emulated charge point on the same clock. A car plugged in at 18:00
// local needs 30 kWh by 07:00 (charging mode `planned`): the planner writes the charger's
// `planned_power` each quarter hour, the charger follows it, and the car's energy, read from
// the emulator, arrives by 07:00 in the cheapest hours while the home battery does not feed it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { ManualClock } from '@heliograph/core/clock';
import type { EmulatedChargePoint } from '@heliograph/plugin-ocpp/emulator';
import { pollUntil } from '../helpers/deadline.js';
import type { TestServer } from '../helpers/server.js';
import { audit } from '../drivers/battery-control.js';
import { valuesOf, valuesWhen, write } from '../drivers/driver-api.js';
import { bootedPoint, ocppEntry } from './ocpp-helpers.js';
import { P, QUARTER, start, step } from './planner-setup.js';

const HOUR = 3_600_000;
/** 18:00 in Berlin, the car plugged in. */
const PLUG_IN = Date.parse('2026-12-21T17:00:00Z');
/** What charger_1 (16 A on 3 phases) charges at most, W. */
const MAX_W = 16 * 3 * 230;

async function startSite(clock: ManualClock): Promise<{ server: TestServer; point: EmulatedChargePoint }> {
  const server = await start(
    clock,
    { mode: 'active' },
    {
      bundled: ['ocpp'],
      fixtures: [],
      sim: { initialSoc: 90 },
      // Heartbeats every hour: the charger is not silent across the clock's quarter-hour steps.
      plugins: [ocppEntry({ heartbeatIntervalS: 3600 }, ['charger_1'])],
    },
  );
  const point = await bootedPoint(server.url, () => clock.now());
  return { server, point };
}

async function set(server: TestServer, topic: string, value: string): Promise<void> {
  const answer = await write(server, topic, value);
  assert.equal(answer.status, 200, `${topic} = ${value}: ${answer.body}`);
}

/** The import price of each hour from `from` to `to`, from the price book the API serves. */
async function hourlyPrices(server: TestServer, from: number, to: number): Promise<Map<number, number>> {
  const q = `from=${new Date(from).toISOString()}&to=${new Date(to).toISOString()}`;
  const book = (await (await server.api(`/api/v1/grid?${q}`)).json()) as {
    pricing: { slots: Array<{ from: string; to: string; price?: number; import_price?: number }> };
  };
  const sums = new Map<number, { sum: number; n: number }>();
  for (const s of book.pricing.slots) {
    const hour = Math.floor(Date.parse(s.from) / HOUR) * HOUR;
    const e = sums.get(hour) ?? { sum: 0, n: 0 };
    e.sum += s.price ?? s.import_price ?? Number.NaN;
    e.n++;
    sums.set(hour, e);
  }
  return new Map([...sums].map(([h, e]) => [h, e.sum / e.n]));
}

/**
 * Waits until the charge point holds what the OCPP plugin last sent for the planner's power
 * (the profile went through the socket) and nothing was sent for a moment.
 */
async function chargerSettled(server: TestServer, point: EmulatedChargePoint): Promise<void> {
  await delay(1);
  let last = point.lastCallAt;
  let quietSince = Date.now();
  await pollUntil(
    () => {
      point.tick();
      if (point.lastCallAt !== last) {
        last = point.lastCallAt;
        quietSince = Date.now();
      }
      const sent = server.registry.visibleValue(server.registry.get('charger_1/current_limit')!);
      const offered = point.offered();
      const holds = sent === null || (offered.source !== 'default' && offered.currentA === sent);
      return Promise.resolve({ done: holds && Date.now() - quietSince > 60, seen: { sent, offered } });
    },
    'the charge point holding the profile for the planned power',
    { ms: 10_000, everyMs: 10 },
  );
}

/** What the night showed: the energy per hour (UTC hour start, kWh) and what broke the rule of the battery. */
interface Night {
  server: TestServer;
  perHour: Map<number, number>;
  /** Quarter hours where the battery discharged beyond the house load, or was left in Normal, while the car charged. */
  batteryIntoCar: string[];
}

/**
 * The car plugged in at 18:00 with `kwh` to add by `deadline` (local `HH:MM`, `until` as Unix
 * ms): each quarter hour the charger settles on the planner's power, the emulator charges the
 * car for the quarter, and the site is read. `check` runs before the server closes.
 */
async function night(
  kwh: number,
  deadline: string,
  until: number,
  check: (n: Night) => Promise<void> | void,
): Promise<void> {
  const clock = new ManualClock(PLUG_IN);
  const { server, point } = await startSite(clock);
  try {
    await set(server, 'charger_1/mode', 'planned');
    await set(server, 'charger_1/plan_energy', String(kwh));
    await set(server, 'charger_1/plan_deadline', deadline);
    await point.plugIn();
    // The charger reports the charge it began by itself at the plug-in (its minimum run).
    point.tick();
    await point.sendMeterValues(true);
    const need = (kwh / 0.9).toFixed(1);
    await valuesWhen(
      server,
      (v) => String(v.get(`${P}/car_plan`)).startsWith(`charger_1: ${need} kWh by`),
      `the car in the plan (${kwh} kWh over the 0.9 efficiency)`,
    );
    await step(server, clock, 0);
    const perHour = new Map<number, number>();
    const batteryIntoCar: string[] = [];
    for (let at = clock.now(); at < until; at = clock.now()) {
      await chargerSettled(server, point);
      const v = await valuesOf(server);
      // The simulator's battery discharge (its battery_power is negative discharging) against
      // its house load; and the mode it was told: Normal would let a real site's battery feed
      // the car (the site's meter sees the car as load; the simulator's does not).
      const dischargeW = -Number(v.get('inverter_1/battery_power'));
      const loadW = Number(v.get('inverter_1/load_power'));
      const mode = v.get('inverter_1/battery_control_mode');
      const when = new Date(at).toISOString();
      if (point.powerW > 0 && dischargeW > loadW + 50)
        batteryIntoCar.push(`${when}: battery ${dischargeW} W, house ${loadW} W`);
      if (point.powerW > 0 && mode === 'Normal') batteryIntoCar.push(`${when}: Normal while the car charges`);
      const before = point.energyWh;
      // The quarter's energy at the power the charger offered, then its meter values.
      clock.advance(QUARTER);
      point.tick();
      await point.sendMeterValues(true);
      await step(server, clock, 0);
      const hour = Math.floor(at / HOUR) * HOUR;
      perHour.set(hour, (perHour.get(hour) ?? 0) + (point.energyWh - before) / 1000);
    }
    await check({ server, perHour, batteryIntoCar });
  } finally {
    await server.close();
  }
}

const sum = (xs: Iterable<number>) => [...xs].reduce((a, b) => a + b, 0);

test('a car needing 30 kWh by 07:00 is charged in the cheapest night hours, the home battery kept off it', async () => {
  const deadline = PLUG_IN + 13 * HOUR;
  await night(30, '07:00', deadline, async ({ server, perHour, batteryIntoCar }) => {
    const total = sum(perHour.values());
    const hours = JSON.stringify([...perHour].map(([h, e]) => [new Date(h).toISOString().slice(11, 16), e.toFixed(1)]));
    assert.ok(total >= 30, `30 kWh by 07:00: ${total.toFixed(1)} kWh charged (${hours})`);
    // The fewest cheapest hours that can deliver it at the charger's power.
    const n = Math.ceil((total * 1000) / MAX_W);
    const prices = await hourlyPrices(server, PLUG_IN, deadline);
    const cheapest = [...prices].sort((a, b) => a[1] - b[1]).slice(0, n);
    const inCheapest = sum(cheapest.map(([h]) => perHour.get(h) ?? 0));
    assert.ok(
      inCheapest >= 0.8 * total,
      `>= 80 % in the ${n} cheapest hours (${cheapest.map(([h, p]) => `${new Date(h).toISOString().slice(11, 16)} ${p}`).join(', ')}): ${inCheapest.toFixed(1)} of ${total.toFixed(1)} kWh; per hour ${hours}`,
    );
    assert.deepEqual(batteryIntoCar, [], 'the battery never fed the car');
    const writes = (await audit(server)).filter((e) => e.via === 'planner' && e.topic === 'charger_1/planned_power');
    const charging = writes.filter((e) => e.result === 'ok' && Number(e.new_value) > 0).length;
    assert.ok(charging >= 12, `planned_power written by the planner, audited, each quarter it charged (${charging})`);
    assert.ok(
      writes.some((e) => e.result === 'ok' && e.new_value === '0'),
      'and 0 W written once the target is reached',
    );
  });
});

test('a car needing energy in the dear evening hours: the full home battery does not feed it', async () => {
  // 20 kWh by 21:00: only the evening peak to charge in, with a battery at 90 % that would
  // pay to discharge then.
  await night(20, '21:00', PLUG_IN + 3 * HOUR, ({ perHour, batteryIntoCar }) => {
    assert.ok(sum(perHour.values()) >= 20, `20 kWh by 21:00: ${sum(perHour.values()).toFixed(1)} kWh`);
    assert.deepEqual(batteryIntoCar, [], 'neither a discharge beyond the house load nor Normal while the car charged');
  });
});

test('a charger that disappears is left out of the plan, and the car plan says why', async () => {
  const clock = new ManualClock(PLUG_IN);
  const { server, point } = await startSite(clock);
  try {
    await set(server, 'charger_1/mode', 'planned');
    await set(server, 'charger_1/plan_energy', '30');
    await point.plugIn();
    await valuesWhen(server, (v) => String(v.get(`${P}/car_plan`)).startsWith('charger_1: '), 'the car in the plan');
    await point.close();
    await valuesWhen(
      server,
      (v) => v.get(`${P}/car_plan`) === 'no car planned: charger_1 is unavailable: its car is not planned',
      'the charger gone from the plan, with the reason',
    );
    // Back again, so the server stops with the charger connected as in the other tests (the
    // OCPP plugin's stop with a charger gone can publish after its device is undeclared: reported).
    await bootedPoint(server.url, () => clock.now());
    await delay(300);
  } finally {
    await server.close();
  }
});

test('a car charging in `now` with the planner active: the planner holds the home battery off it', async () => {
  const clock = new ManualClock(PLUG_IN);
  const { server, point } = await startSite(clock);
  try {
    await set(server, 'charger_1/mode', 'now');
    await point.plugIn();
    point.tick();
    await point.sendMeterValues(true);
    await valuesWhen(server, (v) => Number(v.get('charger_1/power')) > 0, 'the car drawing in `now`');
    // The evening's dear prices and a battery at 90 %: the plan would discharge or go Normal.
    await step(server, clock, 0);
    await valuesWhen(
      server,
      (v) => v.get('inverter_1/battery_control_mode') === 'Hold',
      'the battery on Hold while the car draws',
    );
    const holds = (await audit(server)).filter(
      (e) => e.topic === 'inverter_1/battery_control_mode' && e.new_value === 'Hold' && e.result === 'ok',
    );
    assert.ok(
      holds.length > 0 && holds.every((e) => e.via === 'planner'),
      `held by the planner alone, the battery's one controller: ${JSON.stringify(holds.map((e) => e.via))}`,
    );
  } finally {
    await server.close();
  }
});
