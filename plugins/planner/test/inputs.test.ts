import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { MetricValue, PluginContext, SitePrices, SitePriceSlot } from '@heliograph/plugins-sdk';
import type { PlannerConfig } from '../src/config.js';
import { findDevice, priceTrouble, readInputs } from '../src/inputs.js';

// What the battery plan needs before it may plan, or the reason it gives for not planning (and
// so for keeping the battery in Normal): the controlled device, its limits, the state of
// charge, a price for now and the PV forecast, each as the site answers it.

const QUARTER = 15 * 60_000;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
// 09:05 UTC on a June day (the site's zone is UTC).
const today = Date.UTC(2026, 5, 10);
const now = today + 9 * HOUR + 5 * 60_000;

const BATTERY: Record<string, MetricValue> = {
  'inverter_1/battery_control_mode': 'Normal',
  'inverter_1/battery_capacity': 10,
  'inverter_1/battery_max_charge_power': 5000,
  'inverter_1/battery_max_discharge_power': 4000,
  'inverter_1/battery_state_of_charge': 50,
};

/** A price slot as the core hands it to plugins. */
const slot = (start: number, end: number, importPrice = 0.3): SitePriceSlot => ({
  start,
  end,
  importPrice,
  importRank: 1,
  importPremium: 0,
  exportPrice: 0.05,
  exportRank: 1,
  exportPremium: 0,
});

interface Site {
  values?: Record<string, MetricValue>;
  definitions?: Array<{ topic: string; writable?: { options?: string[] } }>;
  prices?: Partial<SitePrices>;
  /** The provider's PV forecast: `forecastW` (3 kW) at every quarter hour of these days (0: today). */
  forecastDays?: number[];
  forecastW?: number;
  /** The planner's own devices (`planner_2`). */
  devices?: Array<{ id: string }>;
  /** The history the PV calibration reads, by topic; rejected when absent. */
  history?: Record<string, Array<{ time: number; value: number }>>;
}

/** A fake of `ctx.site` answering as the core does, recording what the planner asked and published. */
function site(s: Site = {}) {
  const asked = { values: [] as unknown[], definitions: 0, forecast: [] as unknown[], history: [] as unknown[] };
  const published: unknown[] = [];
  const points = (s.forecastDays ?? [0, 1]).flatMap((d) =>
    Array.from({ length: 96 }, (_, q) => ({ time: today + d * DAY + q * QUARTER, value: s.forecastW ?? 3000 })),
  );
  const ctx = {
    devices: s.devices ?? [{ id: 'planner_2' }],
    topics: { publish: (p: unknown) => published.push(p) },
    site: {
      timeZone: 'UTC',
      values: (q: { filter: unknown }) => {
        asked.values.push(q.filter);
        return Promise.resolve(s.values ?? BATTERY);
      },
      definitions: () => {
        asked.definitions++;
        return Promise.resolve(s.definitions ?? []);
      },
      prices: () =>
        Promise.resolve({
          provider: null,
          currency: 'EUR',
          slots: [slot(today, today + 2 * DAY)],
          ...s.prices,
        }),
      forecast: (q: { fromMs: number; toMs: number }) => {
        asked.forecast.push(q);
        return Promise.resolve(points.filter((p) => p.time >= q.fromMs && p.time < q.toMs));
      },
      history: (q: { topic: string }) => {
        asked.history.push(q);
        const h = s.history?.[q.topic];
        return h ? Promise.resolve(h) : Promise.reject(new Error('no history'));
      },
    },
  } as unknown as PluginContext;
  return { ctx, asked, published };
}

const config = { device: 'inverter_1', horizonHours: 48, exportPaid: true } as PlannerConfig;

async function refusal(s: Site, c: PlannerConfig = config) {
  const read = await readInputs(site(s).ctx, c, now);
  assert.equal(read.ok, false, 'no plan');
  return read;
}

test('the configured device is the one; without one, the first device offering a battery mode', async () => {
  const { ctx, asked } = site({
    definitions: [{ topic: 'meter_1/grid_power' }, { topic: 'hybrid_7/battery_control_mode' }],
  });
  assert.equal(await findDevice(ctx, config), 'inverter_1');
  assert.equal(asked.definitions, 0, 'a configured device needs no definitions');
  assert.equal(await findDevice(ctx, { ...config, device: undefined }), 'hybrid_7');
  assert.equal(await findDevice(site().ctx, { ...config, device: undefined }), null);
  assert.deepEqual(await refusal({}, { ...config, device: undefined }), {
    ok: false,
    device: null,
    why: 'no device offers battery control',
  });
});

test('a device without battery control, unavailable, or without its limits is not planned', async () => {
  const { ctx, asked } = site();
  await readInputs(ctx, config, now);
  assert.deepEqual(asked.values[0], [
    'inverter_1/battery_*',
    'total/battery_state_of_charge',
    'battery_1/state_of_charge',
  ]);
  const without = (topic: string) => Object.fromEntries(Object.entries(BATTERY).filter(([t]) => t !== topic));
  assert.deepEqual(await refusal({ values: without('inverter_1/battery_control_mode') }), {
    ok: false,
    device: 'inverter_1',
    why: 'inverter_1 offers no battery control',
  });
  assert.deepEqual(await refusal({ values: { ...BATTERY, 'inverter_1/battery_control_mode': null } }), {
    ok: false,
    device: 'inverter_1',
    why: 'inverter_1 is unavailable',
    unavailable: true,
  });
  for (const limit of ['battery_capacity', 'battery_max_charge_power', 'battery_max_discharge_power']) {
    for (const values of [
      without(`inverter_1/${limit}`),
      { ...BATTERY, [`inverter_1/${limit}`]: null },
      { ...BATTERY, [`inverter_1/${limit}`]: Number.POSITIVE_INFINITY },
      { ...BATTERY, [`inverter_1/${limit}`]: '10' },
    ])
      assert.deepEqual(
        await refusal({ values }),
        { ok: false, device: 'inverter_1', why: "inverter_1 does not say its battery's limits" },
        `${limit}: ${JSON.stringify(values[`inverter_1/${limit}`])}`,
      );
  }
});

test("the limits, the modes and the state of charge as the device says them; the site's total SoC first", async () => {
  const read = await readInputs(site().ctx, config, now);
  assert.ok(read.ok);
  assert.deepEqual(read.inputs.limits, {
    capacityKwh: 10,
    maxChargeW: 5000,
    maxDischargeW: 4000,
    minSoc: 0,
    modes: ['normal', 'hold', 'charge', 'discharge'],
    leaseS: 0,
  });
  assert.equal(read.inputs.device, 'inverter_1');
  assert.equal(read.inputs.socPercent, 50);

  const leased = await readInputs(
    site({
      values: {
        ...BATTERY,
        'inverter_1/battery_min_soc': 15,
        'inverter_1/battery_control_lease': 120,
        'total/battery_state_of_charge': 61,
        'battery_1/state_of_charge': 72,
      },
      definitions: [
        { topic: 'inverter_1/battery_capacity' },
        { topic: 'inverter_2/battery_control_mode', writable: { options: ['Normal', 'Charge'] } },
        { topic: 'inverter_1/battery_control_mode', writable: { options: ['Normal', 'Hold'] } },
      ],
    }).ctx,
    config,
    now,
  );
  assert.ok(leased.ok);
  assert.deepEqual(
    { ...leased.inputs.limits, soc: leased.inputs.socPercent },
    {
      capacityKwh: 10,
      maxChargeW: 5000,
      maxDischargeW: 4000,
      minSoc: 15,
      modes: ['normal', 'hold'],
      leaseS: 120,
      soc: 61,
    },
  );

  // A mode definition that does not list its options: the four modes of the SDK.
  const unlisted = await readInputs(
    site({ definitions: [{ topic: 'inverter_1/battery_control_mode' }] }).ctx,
    config,
    now,
  );
  assert.ok(unlisted.ok);
  assert.deepEqual(unlisted.inputs.limits.modes, ['normal', 'hold', 'charge', 'discharge']);

  const soc = async (values: Record<string, MetricValue>) => {
    const read = await readInputs(site({ values }).ctx, config, now);
    return read.ok ? read.inputs.socPercent : read.why;
  };
  assert.equal(await soc({ ...BATTERY, 'total/battery_state_of_charge': null, 'battery_1/state_of_charge': 72 }), 50);
  assert.equal(
    await soc({ ...BATTERY, 'inverter_1/battery_state_of_charge': null, 'battery_1/state_of_charge': 72 }),
    72,
  );
  assert.equal(
    await soc({ ...BATTERY, 'inverter_1/battery_state_of_charge': Number.NaN }),
    'the state of charge is missing or stale',
  );
});

test('a price must cover now; the provider trouble is said with the refusal and with a plan', async () => {
  assert.deepEqual(await refusal({ prices: { slots: [slot(now - HOUR, now), slot(now + QUARTER, now + DAY)] } }), {
    ok: false,
    device: 'inverter_1',
    why: 'no price for now',
  });
  assert.deepEqual(
    await refusal({
      prices: {
        provider: 'entsoe',
        slots: [slot(today, now - 5 * 60_000)],
        status: { state: 'stale', message: null, lastData: null },
      },
    }),
    { ok: false, device: 'inverter_1', why: 'no price for now: prices from entsoe ended at 09:00' },
  );

  const from = await readInputs(
    site({ prices: { slots: [slot(now - HOUR, now), slot(now, now + HOUR)] } }).ctx,
    config,
    now,
  );
  assert.ok(from.ok, 'a slot starting now covers now');
  assert.equal(from.inputs.note, undefined);

  const failed = await readInputs(
    site({
      prices: {
        provider: 'entsoe',
        currency: null,
        status: { state: 'failed', message: 'ENTSO-E answered 503', lastData: today + 7 * HOUR },
      },
      forecastDays: [-1],
    }).ctx,
    config,
    now,
  );
  assert.ok(failed.ok, 'the last prices are planned on');
  assert.equal(failed.inputs.currency, '');
  assert.equal(
    failed.inputs.note,
    "; prices from entsoe failed (last good data at 07:00): ENTSO-E answered 503; no PV forecast for the next hours: planned on the nearest day's",
  );
});

test("the provider's trouble in words", () => {
  const book = (b: Partial<SitePrices>): SitePrices => ({ provider: 'octopus', currency: 'GBP', slots: [], ...b });
  const around = slot(now - HOUR, now + HOUR);
  assert.equal(
    priceTrouble(book({ provider: null, status: { state: 'failed', message: 'x', lastData: null } }), now, 'UTC'),
    undefined,
  );
  assert.equal(
    priceTrouble(book({ status: { state: 'failed', message: null, lastData: null } }), now, 'UTC'),
    'prices from octopus failed',
  );
  assert.equal(
    priceTrouble(
      book({ status: { state: 'failed', message: 'timeout', lastData: today - DAY + 18 * HOUR } }),
      now,
      'UTC',
    ),
    'prices from octopus failed (last good data at Tue 18:00): timeout',
  );
  assert.equal(priceTrouble(book({ slots: [around] }), now, 'UTC'), undefined, 'prices beyond now');
  assert.equal(priceTrouble(book({}), now, 'UTC'), undefined, 'no slots yet: not ended');
  assert.equal(
    priceTrouble(book({ slots: [around, slot(now - 2 * HOUR, now)] }), now + HOUR, 'UTC'),
    'prices from octopus ended at 10:05',
    'the latest end counts, and an end at now has ended',
  );
});

test('what the plan is made from: export paid or not, and a key that changes with the prices and the forecast', async () => {
  const read = async (s: Site, c: PlannerConfig = config) => {
    const r = await readInputs(site(s).ctx, c, now);
    assert.ok(r.ok);
    return r.inputs;
  };
  const paid = await read({});
  assert.deepEqual(paid.prices, [{ start: today, end: today + 2 * DAY, import: 0.3, export: 0.05 }]);
  assert.equal(paid.currency, 'EUR');
  const unpaid = await read({}, { ...config, exportPaid: false });
  assert.equal(unpaid.prices[0]!.export, 0);

  const keys = new Set([
    paid.key,
    unpaid.key,
    (await read({ forecastDays: [0] })).key,
    (await read({ prices: { slots: [slot(today, today + 2 * DAY, 0.31)] } })).key,
    (await read({ prices: { slots: [slot(today, today + DAY)] } })).key,
    (await read({ forecastW: 2900 })).key,
  ]);
  assert.equal(keys.size, 6, [...keys].join(' | '));
  assert.equal((await read({})).key, paid.key, 'the same inputs, the same key');
});

test("a day the PV forecast leaves out is planned on the nearest day's, and the status says so", async () => {
  // Yesterday and tomorrow are forecast, today is not.
  const { ctx, asked } = site({ forecastDays: [-1, 1] });
  const read = await readInputs(ctx, config, now);
  assert.ok(read.ok, read.ok ? '' : read.why);
  assert.deepEqual(
    asked.forecast[0],
    { fromMs: today + 9 * HOUR - 2 * DAY, toMs: now + 48 * HOUR },
    'from two days back',
  );
  assert.equal(read.inputs.pvW.get(today - DAY + 9 * HOUR), 3000, "yesterday's forecast is there to be taken");
  assert.equal(read.inputs.note, "; no PV forecast for the next hours: planned on the nearest day's");

  const covered = await readInputs(site({ forecastDays: [-1, 0, 1] }).ctx, config, now);
  assert.ok(covered.ok);
  assert.equal(covered.inputs.note, undefined);
  // Only three days ago: further off than the plan looks for a day to take.
  assert.deepEqual(await refusal({ forecastDays: [-3] }), {
    ok: false,
    device: 'inverter_1',
    why: 'no PV forecast for the next hours',
  });
});

test('the forecast is read over the horizon and must reach the next six hours, from the quarter before now', async () => {
  const { ctx, asked } = site();
  await readInputs(ctx, { ...config, horizonHours: 24 }, now);
  assert.deepEqual(asked.forecast[0], { fromMs: today + 9 * HOUR - 2 * DAY, toMs: now + 24 * HOUR });

  const note = async (times: number[]) => {
    const points = times.map((time) => ({ time, value: 2000 }));
    const c = site({ forecastDays: [] }).ctx;
    (c.site as { forecast: unknown }).forecast = () => Promise.resolve(points);
    const r = await readInputs(c, config, now);
    return r.ok ? (r.inputs.note ?? 'covered') : r.why;
  };
  const nearest = "; no PV forecast for the next hours: planned on the nearest day's";
  assert.equal(await note([now - QUARTER]), 'covered', 'the quarter before now');
  assert.equal(await note([now + 6 * HOUR - 1]), 'covered');
  assert.equal(await note([now - QUARTER - 1, now + 6 * HOUR]), 'no PV forecast for the next hours');
  assert.equal(await note([now - DAY]), nearest);
  assert.equal(await note([now + DAY + 6 * HOUR - 1]), nearest);
  assert.equal(await note([now - 2 * DAY - QUARTER]), nearest);
  assert.equal(await note([now + 2 * DAY]), nearest);
  assert.equal(
    await note([now - 2 * DAY - QUARTER - 1, now + 2 * DAY + 6 * HOUR]),
    'no PV forecast for the next hours',
  );
});

test('the PV forecast is calibrated by hour from history, learnt once an hour and published', async () => {
  // The last 14 days at 09-10 h: the provider said 3 kW, 1.5 kW came.
  const days = Array.from({ length: 14 }, (_, d) => today - (d + 1) * DAY + 9 * HOUR);
  const history = {
    'weather/pv_power_predicted': days.map((time) => ({ time, value: 3000 })),
    'total/pv_power': days.map((time) => ({ time, value: 1500 })),
  };
  const { ctx, asked, published } = site({ history });
  const read = await readInputs(ctx, config, now);
  assert.ok(read.ok);
  assert.equal(read.inputs.pvW.get(today + 9 * HOUR + QUARTER), 1500, 'halved at 09-10 h');
  assert.equal(read.inputs.pvW.get(today + 10 * HOUR), 3000, 'as forecast at 10-11 h');
  // 14 days to learn from and 7 before them to measure the error on, to the last whole hour.
  const window = { fromMs: today + 9 * HOUR - 22 * DAY, toMs: today + 9 * HOUR, groupBy: '1h', agg: 'mean' };
  assert.deepEqual(asked.history, [
    { topic: 'total/pv_power', ...window },
    { topic: 'weather/pv_power_predicted', ...window },
  ]);
  assert.deepEqual(published, [
    {
      device: 'planner_2',
      values: { pv_calibration: '09-10 0.50', pv_forecast_error_raw: 1500, pv_forecast_error: 0 },
    },
  ]);

  await readInputs(ctx, config, now + 50 * 60_000);
  assert.equal(published.length, 1, 'learnt once within the hour');
  assert.equal(asked.history.length, 2);
  await readInputs(ctx, config, now + 55 * 60_000);
  assert.equal(published.length, 2, 'and again in the next');

  // Without history (it fails here), nothing is learnt and nothing is changed. A planner
  // without a device of its own yet publishes on planner_1.
  const fresh = site({ devices: [] });
  const plain = await readInputs(fresh.ctx, config, now);
  assert.ok(plain.ok);
  assert.equal(plain.inputs.pvW.get(today + 9 * HOUR + QUARTER), 3000);
  assert.deepEqual(fresh.published, [
    {
      device: 'planner_1',
      values: { pv_calibration: 'none yet (too little history)', pv_forecast_error_raw: null, pv_forecast_error: null },
    },
  ]);
});
