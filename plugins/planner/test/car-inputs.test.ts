import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { MetricValue, PluginContext } from '@heliograph/plugins-sdk';
import { nextLocalTime, readCar } from '../src/car-inputs.js';
import { CarControl } from '../src/car-control.js';
import type { PlannerConfig } from '../src/config.js';
import { LocalCalendar } from '../src/load-forecast.js';
import type { Plan } from '../src/plan.js';

// Which car the plan charges and why the others are not (car-inputs.ts), and what the
// chargers are told (car-control.ts): each against a fake ctx.site answering as the core does.

const HOUR = 3_600_000;
const QUARTER = HOUR / 4;
// 20:10 UTC (the site's zone is UTC).
const now = Date.UTC(2026, 5, 10, 20, 10);

/** A charger in mode `planned` with a car plugged in that wants 10 kWh by 07:00. */
const READY: Record<string, MetricValue> = {
  mode: 'planned',
  online: true,
  car_connected: true,
  plan_energy: 10,
  plan_deadline: '07:00',
};

interface Chargers {
  /** Per charger, its values without the device prefix. */
  [device: string]: Record<string, MetricValue>;
}

/**
 * A site with these chargers, each with a `planned_power` setting of at most `rating` W (22 kW;
 * 0: no maximum given), or only a `mode` setting when listed in `without`.
 */
function site(chargers: Chargers, opts: { without?: string[]; rating?: number; fail?: boolean } = {}) {
  const writes: Array<{ topic: string; value: unknown }> = [];
  const warnings: string[] = [];
  let refuse: string | null = null;
  const ctx = {
    log: { warn: (w: string) => warnings.push(w), debug: () => undefined },
    site: {
      timeZone: 'UTC',
      definitions: () =>
        opts.fail
          ? Promise.reject(new Error('core went away'))
          : Promise.resolve([
              { deviceId: 'meter_1', topic: 'meter_1/grid_power' },
              ...Object.keys(chargers).map((deviceId) =>
                opts.without?.includes(deviceId)
                  ? { deviceId, topic: `${deviceId}/mode`, writable: { type: 'enum', options: ['now', 'planned'] } }
                  : {
                      deviceId,
                      topic: `${deviceId}/planned_power`,
                      writable: {
                        type: 'number',
                        min: 0,
                        ...(opts.rating === 0 ? {} : { max: opts.rating ?? 22_000 }),
                      },
                    },
              ),
            ]),
      values: ({ filter }: { filter: string }) => {
        const device = filter.slice(0, filter.indexOf('/'));
        return Promise.resolve(
          Object.fromEntries(Object.entries(chargers[device] ?? {}).map(([k, v]) => [`${device}/${k}`, v])),
        );
      },
      write: (w: { topic: string; value: unknown }) => {
        writes.push(w);
        return refuse === null ? Promise.resolve() : Promise.reject(new Error(refuse));
      },
    },
  } as unknown as PluginContext;
  return { ctx, writes, warnings, refuseWith: (why: string | null) => (refuse = why) };
}

const config = { carEfficiency: 0.9, carCapacityKwh: 60 } as PlannerConfig;
const at0700 = Date.UTC(2026, 5, 11, 7);

test('the first charger in mode planned whose car needs energy is the car, with its need, deadline and limits', async () => {
  const read = await readCar(
    site({ charger_1: { ...READY, session_energy: 1, power: 1400, allow_battery_to_car: true } }).ctx,
    config,
    now,
  );
  assert.deepEqual(read.car, {
    device: 'charger_1',
    needKwh: 10 / 0.9 - 1,
    deadline: at0700,
    maxW: 16 * 3 * 230,
    minW: 6 * 3 * 230,
    allowBattery: true,
    livePowerW: 1400,
  });
  assert.deepEqual(read.notes, []);
  assert.equal(read.key, `charger_1:${at0700}:11040:4140:true:`);

  // One phase, its own currents, a charger rated below them; the battery not allowed; no power read.
  const one = await readCar(
    site({ charger_1: { ...READY, active_phases: 1, max_current: 32, min_current: 8, power: null } }, { rating: 7_000 })
      .ctx,
    config,
    now,
  );
  assert.deepEqual(
    { ...one.car, needKwh: undefined },
    {
      device: 'charger_1',
      needKwh: undefined,
      deadline: at0700,
      maxW: 7_000,
      minW: 8 * 230,
      allowBattery: false,
      livePowerW: 0,
    },
  );
  // Three phases (or a phase count it does not say) with a minimum above the rating: the rating.
  const small = await readCar(site({ charger_1: { ...READY, active_phases: 3 } }, { rating: 3_000 }).ctx, config, now);
  assert.deepEqual([small.car?.maxW, small.car?.minW], [3_000, 3_000]);
  // A setting that gives no maximum: the currents alone.
  const unrated = await readCar(site({ charger_1: READY }, { rating: 0 }).ctx, config, now);
  assert.deepEqual([unrated.car?.maxW, unrated.car?.minW], [11_040, 4_140]);
});

test("the need: plan_energy over the efficiency less the session's, else plan_soc against the car's SoC", async () => {
  const need = async (v: Record<string, MetricValue>) => {
    const read = await readCar(site({ charger_1: { ...READY, plan_energy: null, ...v } }).ctx, config, now);
    return read.car?.needKwh ?? read.notes.join('; ');
  };
  assert.equal(await need({ plan_energy: 9, session_energy: 4 }), 9 / 0.9 - 4);
  assert.equal(await need({ plan_energy: 0, plan_soc: 80, vehicle_soc: 35 }), (0.45 * 60) / 0.9);
  assert.equal(
    await need({ plan_soc: 80, vehicle_soc: 35, session_energy: 4 }),
    (0.45 * 60) / 0.9,
    'SoC: the car counts',
  );
  const none = "charger_1: no plan target (plan_energy, or plan_soc with the car's SoC reported)";
  assert.equal(await need({ plan_soc: 80 }), none, 'no SoC from the car');
  assert.equal(await need({ plan_soc: 0, vehicle_soc: 35 }), none);
  assert.equal(await need({}), none);

  const reached = await readCar(
    site({
      charger_1: { ...READY, plan_energy: 9, session_energy: 10 },
      charger_2: { ...READY, plan_energy: 0, plan_soc: 50, vehicle_soc: 50 },
    }).ctx,
    config,
    now,
  );
  assert.equal(reached.car, null);
  assert.deepEqual(reached.done, ['charger_1', 'charger_2'], 'both told 0 W');
  assert.deepEqual(reached.notes, ['charger_1: the plan target is reached', 'charger_2: the plan target is reached']);
});

test('a charger is not planned without the setting, while unavailable, without a car, or without a deadline', async () => {
  const read = await readCar(
    site(
      {
        charger_1: { ...READY, mode: null },
        charger_2: { ...READY, online: false },
        charger_3: { ...READY, online: null },
        charger_4: { ...READY, car_connected: false },
        charger_5: { ...READY, plan_deadline: '7:00' },
        charger_6: { ...READY, plan_deadline: null },
        charger_7: READY,
      },
      { without: ['charger_7'] },
    ).ctx,
    {
      ...config,
      chargers: ['charger_1', 'charger_2', 'charger_3', 'charger_4', 'charger_5', 'charger_6', 'charger_7'],
    },
    now,
  );
  assert.equal(read.car, null);
  assert.deepEqual(read.notes, [
    'charger_1 is unavailable: its car is not planned',
    'charger_2 is unavailable: its car is not planned',
    'charger_3 is unavailable: its car is not planned',
    'charger_4: no car plugged in',
    'charger_5: no plan deadline',
    'charger_6: no plan deadline',
    'charger_7 has no planned_power setting',
  ]);
  assert.equal(read.key, read.notes.join('|'));
});

test('one car at a time; only the configured chargers; a charger in another mode that draws keeps the battery off', async () => {
  const chargers = {
    charger_1: { ...READY, mode: 'pv', power: 2000 },
    charger_2: { ...READY, mode: 'now', power: 2000, allow_battery_to_car: true },
    charger_3: { ...READY, mode: 'now', power: 0 },
    charger_4: READY,
    charger_5: { ...READY, plan_deadline: '06:00' },
    charger_6: { ...READY, car_connected: false },
  };
  const read = await readCar(site(chargers).ctx, config, now);
  assert.equal(read.car?.device, 'charger_4');
  assert.deepEqual(read.drawing, ['charger_1']);
  const notes = ['charger_5: not planned, one car at a time (charger_4 is)', 'charger_6: no car plugged in'];
  assert.deepEqual(read.notes, notes);
  assert.equal(read.key, `charger_4:${at0700}:11040:4140:false:${notes[0]}|${notes[1]}`);

  const only5 = await readCar(site(chargers).ctx, { ...config, chargers: ['charger_5'] }, now);
  assert.equal(only5.car?.device, 'charger_5');
  assert.equal(only5.car?.deadline, Date.UTC(2026, 5, 11, 6));
  assert.deepEqual(only5.drawing, []);

  // What the plan is made for, not what has been charged meanwhile.
  const later = await readCar(site({ ...chargers, charger_4: { ...READY, session_energy: 3 } }).ctx, config, now);
  assert.equal(later.key, read.key);
});

/** A plan whose car is charged `powerW` now, and whose battery does `batteryW` now. */
function plan(powerW: number, batteryW = 0, device = 'charger_1'): Plan {
  return {
    car: { device, powerW: [powerW, 0], needKwh: 10, shortKwh: 0, deadline: at0700 },
    actions: [
      { start: now, end: now + QUARTER, batteryW },
      { start: now + QUARTER, end: now + 2 * QUARTER, batteryW: 0 },
    ],
  } as unknown as Plan;
}

test('the charger is told the plan’s power within its limits, and the battery kept off the car', async () => {
  const control = new CarControl(
    site({ charger_1: READY, charger_2: { ...READY, mode: 'now', power: 1500 } }).ctx,
    config,
  );
  assert.equal(await control.read(now), true, 'the first read is a change');
  assert.equal(await control.read(now), false, 'the same chargers again are not');
  assert.equal(control.request?.device, 'charger_1');

  assert.deepEqual(control.powerNow(plan(7_200.4)), { device: 'charger_1', powerW: 7_200 });
  assert.deepEqual(control.powerNow(plan(1_000)), { device: 'charger_1', powerW: 4_140 }, 'raised to the minimum');
  assert.deepEqual(control.powerNow(plan(50_000)), { device: 'charger_1', powerW: 11_040 }, 'lowered to the maximum');
  assert.deepEqual(control.powerNow(plan(0)), { device: 'charger_1', powerW: 0 });
  assert.deepEqual(control.powerNow(plan(-5)), { device: 'charger_1', powerW: 0 });
  assert.equal(control.powerNow(plan(7_000, 0, 'charger_9')), null, 'a plan made for another car');
  assert.equal(control.powerNow(null), null);
  assert.equal(control.powerNow({ ...plan(7_000), car: undefined }), null);

  // The planned car charges and may not take the battery: Hold instead of what would feed it.
  const modes = ['normal', 'hold', 'charge', 'discharge'];
  const held = {
    mode: 'hold',
    refused: ' (the plan says Discharge; Hold while the car charges on charger_1: the battery may not feed it)',
  };
  assert.deepEqual(control.hold('discharge', plan(7_000), modes), held);
  assert.deepEqual(control.hold('normal', plan(7_000), modes), {
    ...held,
    refused: held.refused.replace('Discharge', 'Normal'),
  });
  assert.equal(control.hold('normal', plan(7_000, -1_000), modes), null, 'a Normal that charges the battery stays');
  assert.deepEqual(control.hold('normal', plan(7_000, 500), modes)?.mode, 'hold');
  assert.equal(control.hold('charge', plan(7_000), modes), null);
  assert.equal(control.hold('hold', plan(7_000), modes), null);
  assert.equal(control.hold('discharge', plan(7_000), ['normal', 'discharge']), null, 'a device without Hold');
  assert.equal(control.blocksBattery(plan(7_000)), true);

  // Not charging now: the car drawing on charger_2 (mode now) keeps the battery off it as well.
  assert.equal(control.hold('discharge', plan(0), modes)?.refused.includes('on charger_2'), true);
  const quiet = new CarControl(site({ charger_1: { ...READY, power: 0 } }).ctx, config);
  await quiet.read(now);
  assert.equal(quiet.blocksBattery(plan(0)), false);
  assert.equal(quiet.hold('discharge', plan(0), modes), null);
  // A charge the charger began by itself (its minimum run) counts as the plan's would.
  const selfStarted = new CarControl(site({ charger_1: { ...READY, power: 1_400 } }).ctx, config);
  await selfStarted.read(now);
  assert.equal(selfStarted.blocksBattery(plan(0)), true);
  assert.equal(selfStarted.blocksBattery(null), true, 'without a plan too');
  assert.equal(selfStarted.hold('discharge', null, modes)?.mode, 'hold');
  assert.equal(selfStarted.hold('normal', { ...plan(0), actions: [] }, modes)?.mode, 'hold');
  // A car the battery may feed is not held for.
  const allowed = new CarControl(site({ charger_1: { ...READY, allow_battery_to_car: true } }).ctx, config);
  await allowed.read(now);
  assert.equal(allowed.blocksBattery(plan(7_000)), false);
});

test('planned_power is written when it changes and once a quarter hour; a refusal is said and tried again', async () => {
  const s = site({ charger_1: READY, charger_2: { ...READY, plan_energy: 5, session_energy: 6 } });
  const control = new CarControl(s.ctx, config);
  await control.read(now);
  assert.equal(
    await control.write(plan(7_000), 'dry-run', now),
    '; would set charger_1 planned_power 7000 W; would set charger_2 planned_power 0 W',
  );
  assert.deepEqual(s.writes, [], 'dry-run writes nothing');

  assert.equal(await control.write(plan(7_000), 'active', now), '; car on charger_1 7000 W; car on charger_2 0 W');
  assert.deepEqual(s.writes, [
    { topic: 'charger_1/planned_power', value: 7_000 },
    { topic: 'charger_2/planned_power', value: 0 },
  ]);
  await control.write(plan(7_000), 'active', now + 60_000);
  assert.equal(s.writes.length, 2, 'the same power within the quarter hour: not again');
  await control.write(plan(7_500), 'active', now + 2 * 60_000);
  assert.deepEqual(s.writes.at(-1), { topic: 'charger_1/planned_power', value: 7_500 });
  assert.equal(s.writes.length, 3, 'only the charger whose power changed');
  await control.write(plan(7_500), 'active', now + QUARTER);
  assert.equal(s.writes.length, 5, 'both again in the next quarter hour');

  await control.write(plan(7_500), 'active', now + 2 * QUARTER);
  assert.equal(s.writes.length, 7);
  s.refuseWith('403 forbidden');
  assert.equal(
    await control.write(plan(8_000), 'active', now + 2 * QUARTER + 60_000),
    '; charger_1 refused planned_power 8000 W: 403 forbidden; it falls back to its default charging; car on charger_2 0 W',
  );
  assert.equal(s.writes.length, 8, 'charger_2 unchanged: not written');
  assert.deepEqual(s.warnings, [
    'charger_1 refused planned_power 8000 W: 403 forbidden; it falls back to its default charging',
  ]);
  s.refuseWith(null);
  await control.write(plan(8_000), 'active', now + 2 * QUARTER + 2 * 60_000);
  assert.equal(s.writes.length, 10, 'after a refusal every charger is written again within the quarter hour');
  await control.write(plan(8_000), 'active', now + 2 * QUARTER + 3 * 60_000);
  assert.equal(s.writes.length, 10, 'and not once it went through');

  const idle = new CarControl(site({ charger_1: { ...READY, car_connected: false } }).ctx, config);
  await idle.read(now);
  assert.equal(await idle.write(plan(7_000), 'active', now), '', 'no car to tell anything');
});

test('a deadline is the next time the local clock shows hh:mm, read only from that form', () => {
  const zone = 'Europe/Berlin';
  // 06:00 CET on 22 December.
  const winter = Date.parse('2026-12-22T05:00:00Z');
  assert.equal(nextLocalTime(winter, '06:30', zone), Date.parse('2026-12-22T05:30:00Z'));
  assert.equal(nextLocalTime(winter, '05:45', zone), Date.parse('2026-12-23T04:45:00Z'));
  for (const text of ['x06:30', '06:30x', '6:30', '06:3', ''])
    assert.equal(nextLocalTime(winter, text, zone), null, JSON.stringify(text));
  // 01:55 CET on 29 March 2026; at 02:00 the clocks go to 03:00. 02:05 is not shown that
  // night: the deadline is 03:05 CEST, ten minutes on, not a day later.
  assert.equal(nextLocalTime(Date.parse('2026-03-29T00:55:00Z'), '02:05', zone), Date.parse('2026-03-29T01:05:00Z'));
  // 02:50 summer time on 25 October 2026; at 03:00 the clocks go back to 02:00. 02:10 comes
  // round again 20 minutes on (02:10 winter time), not a day later; once past it, tomorrow's.
  const back = (now: string, hhmm: string) => new Date(nextLocalTime(Date.parse(now), hhmm, zone)!).toISOString();
  assert.equal(back('2026-10-25T00:50:00Z', '02:10'), '2026-10-25T01:10:00.000Z');
  assert.equal(back('2026-10-25T00:50:00Z', '02:55'), '2026-10-25T00:55:00.000Z');
  assert.equal(back('2026-10-25T01:20:00Z', '02:10'), '2026-10-26T01:10:00.000Z');
});

test('a deadline is always ahead, within a day, at the wanted minute wherever the clock does not jump', () => {
  // Around the 2026 clock changes of zones that move by an hour, by 30 minutes (Lord Howe) and
  // at midnight (Havana): each `now` every 97 minutes over three days, each hh:mm every 20.
  const changes: Array<[string, number]> = [
    ['Europe/Berlin', Date.UTC(2026, 2, 28)],
    ['Europe/Berlin', Date.UTC(2026, 9, 24)],
    ['Australia/Lord_Howe', Date.UTC(2026, 3, 4)],
    ['America/Havana', Date.UTC(2026, 2, 7)],
  ];
  const two = (n: number) => String(n).padStart(2, '0');
  for (const [zone, from] of changes) {
    const calendar = new LocalCalendar(zone);
    const offset = (t: number) => (calendar.position(t).minute - Math.floor(t / 60_000)) % 1440;
    for (let now = from; now < from + 3 * 24 * HOUR; now += 97 * 60_000)
      for (let want = 0; want < 1440; want += 20) {
        const at = nextLocalTime(now, `${two(Math.floor(want / 60))}:${two(want % 60)}`, zone)!;
        const where = `${zone} ${new Date(now).toISOString()} ${want}`;
        assert.ok(at > now && at <= now + 25 * HOUR, where);
        const jumped = offset(at) !== offset(at - 3 * HOUR);
        assert.ok(calendar.position(at).minute === want || jumped, where);
        // Nor is there a sooner one: in an hour the clock shows twice, or a day before.
        for (const back of [30, 60, 24 * 60]) {
          const sooner = at - back * 60_000;
          assert.ok(!(sooner > now && calendar.position(sooner).minute === want), `${where}: ${back} min sooner`);
        }
      }
  }
});

test("the car's plan in words, and chargers that could not be read", async () => {
  const control = new CarControl(site({ charger_1: READY, charger_2: { ...READY, car_connected: false } }).ctx, config);
  await control.read(now);
  const charging = {
    ...plan(7_000),
    car: { device: 'charger_1', powerW: [7_000, 7_000], needKwh: 33.33, shortKwh: 0.06, deadline: at0700 },
  } as Plan;
  assert.equal(
    control.text(charging, now),
    'charger_1: 33.3 kWh by Thu 07:00, charging 20:10-20:40; cannot be met: 0.1 kWh short by the deadline; charger_2: no car plugged in',
  );
  const met = { ...charging, car: { ...charging.car!, powerW: [0, 7_000], shortKwh: 0.05 } } as Plan;
  assert.equal(
    control.text(met, now),
    'charger_1: 33.3 kWh by Thu 07:00, charging 20:25-20:40; charger_2: no car plugged in',
  );
  const none = { ...met, car: { ...met.car!, powerW: [0, 0] } } as Plan;
  assert.equal(control.text(none, now).split(',')[1], ' no charging planned; charger_2: no car plugged in');
  assert.equal(control.text({ ...met, car: undefined }, now), 'no car planned: charger_2: no car plugged in');

  const failing = new CarControl(site({}, { fail: true }).ctx, config);
  // Before the first read: no car, nothing to write, the battery not held.
  assert.equal(failing.request, null);
  assert.equal(failing.text({ ...met, car: undefined }, now), 'no car planned');
  assert.equal(failing.blocksBattery(plan(7_000)), false);
  assert.equal(await failing.write(plan(7_000), 'active', now), '');
  assert.equal(await failing.read(now), true);
  assert.equal(failing.blocksBattery(plan(7_000)), false, 'nor after a failed read');
  assert.equal(await failing.write(plan(7_000), 'active', now), '');
  assert.deepEqual(failing.powerNow(plan(7_000)), null);
  assert.equal(failing.request, null);
  assert.equal(
    failing.text({ ...met, car: undefined }, now),
    'no car planned: chargers not read: Error: core went away',
  );
  assert.equal(await failing.read(now), false, 'still failing: no change');
  const empty = new CarControl(site({}).ctx, config);
  assert.equal(await empty.read(now), false, 'no chargers from the start: no change');
  assert.equal(empty.text({ ...met, car: undefined }, now), 'no car planned');
  assert.equal(empty.hold('discharge', plan(7_000), ['normal', 'hold']), null);

  const alone = new CarControl(site({ charger_1: READY }).ctx, config);
  await alone.read(now);
  assert.equal(alone.text(met, now), 'charger_1: 33.3 kWh by Thu 07:00, charging 20:25-20:40');
  const others = new CarControl(
    site({ charger_1: READY, charger_2: { ...READY, mode: null }, charger_3: { ...READY, car_connected: false } }).ctx,
    config,
  );
  await others.read(now);
  assert.equal(
    others.text(met, now),
    'charger_1: 33.3 kWh by Thu 07:00, charging 20:25-20:40; charger_2 is unavailable: its car is not planned; charger_3: no car plugged in',
  );
  const two = new CarControl(
    site({ charger_1: { ...READY, car_connected: false }, charger_2: { ...READY, plan_deadline: null } }).ctx,
    config,
  );
  await two.read(now);
  assert.equal(
    two.text({ ...met, car: undefined }, now),
    'no car planned: charger_1: no car plugged in; charger_2: no plan deadline',
  );
});
