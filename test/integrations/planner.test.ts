// The battery planner in the real server with a manual clock and the simulator: dry-run
// plans and writes nothing; switched to active it charges the bank in the cheap night and
// spends it in the dear evening, through the audited write path (via planner); a user's
// own write pauses it for the slot; missing prices and the planner stopping send the
// inverter back to Normal.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ManualClock } from '@heliograph/core/clock';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { audit } from '../drivers/battery-control.js';
import { instanceWhen, valuesOf, valuesWhen, write } from '../drivers/driver-api.js';

const QUARTER = 15 * 60_000;
// 20:00 UTC = 21:00 in Berlin, a winter night: no PV until tomorrow morning; the demo
// prices are cheapest around 03:00 and dearest around 19:00 local.
const EVENING_BEFORE = Date.parse('2026-12-21T20:00:00Z');
const P = 'planner_1';

async function start(clock: ManualClock, plannerConfig: Record<string, unknown> = {}): Promise<TestServer> {
  return startTestServer({
    clock,
    bundled: ['simulator', 'planner'],
    config: { site: { timeZone: 'Europe/Berlin', latitude: 52.5, longitude: 13.4 } },
    plugins: [
      {
        id: 'sim',
        plugin: 'simulator',
        devices: ['inverter_1', 'battery_1'],
        // A winter day with little sun: the night's cheap energy is what fills the bank.
        config: { pollIntervalMs: 1000, initialSoc: 30, backfill_days: 0, pvPeakW: 300 },
      },
      { id: 'planner', plugin: 'planner', devices: ['planner_1'], config: { checkIntervalMs: 150, ...plannerConfig } },
    ],
  });
}

/** Moves the clock on and waits until both the planner and the simulator ran after the move. */
async function step(server: TestServer, clock: ManualClock, ms: number): Promise<Map<string, unknown>> {
  clock.advance(ms);
  const at = clock.now();
  for (const id of ['sim', 'planner'])
    await instanceWhen(
      server,
      id,
      (i) => Date.parse((i as unknown as { last_poll: string | null }).last_poll ?? '') >= at,
      `${id} ran at ${new Date(at).toISOString()}`,
    );
  return valuesOf(server);
}

describe('battery planner on the simulator', () => {
  test('dry-run plans and shows, writes nothing; active charges in the night and discharges in the evening', async () => {
    const clock = new ManualClock(EVENING_BEFORE);
    const server = await start(clock);
    try {
      const first = await valuesWhen(
        server,
        (v) => typeof v.get(`${P}/planned_mode`) === 'string' && v.get('inverter_1/battery_capacity') === 10,
        'a first plan',
      );
      assert.equal(first.get(`${P}/mode`), 'dry-run');
      assert.match(String(first.get(`${P}/status`)), /^dry-run: would set/);
      assert.match(String(first.get(`${P}/reason`)), /^(normal|hold|charge|discharge): /);
      const plan = (await (await server.api(`/api/v1/forecast?topic=${P}/soc_planned`)).json()) as {
        points: Array<[string, number]>;
      };
      assert.ok(plan.points.length >= 80, `a plan to the end of tomorrow: ${plan.points.length} points`);
      assert.ok(
        plan.points.every(([, soc]) => soc >= 20 - 1e-6),
        'never below the reserve',
      );
      assert.equal((await audit(server)).filter((e) => e.via === 'planner').length, 0, 'dry-run writes nothing');

      const switched = await write(server, `${P}/mode`, 'active');
      assert.equal(switched.status, 200, switched.body);

      // Through the night: the planner charges in the cheap hours (the rest of the bank's
      // charge comes from the cheap midday hours tomorrow, as the demo prices have them).
      const modes = new Set<string>();
      let low = 100;
      let risen = 0;
      for (let t = 0; t < 8 * 4; t++) {
        const v = await step(server, clock, QUARTER);
        const soc = v.get('battery_1/state_of_charge') as number;
        modes.add(String(v.get('inverter_1/battery_control_mode')));
        low = Math.min(low, soc);
        risen = Math.max(risen, soc - low);
      }
      assert.ok(modes.has('Charge'), `charged at night (modes seen: ${[...modes].join(', ')})`);
      assert.ok(risen > 10, `the bank's charge rose in the night by ${risen.toFixed(1)} points`);
      const charged = (await audit(server)).filter(
        (e) => e.via === 'planner' && e.topic === 'inverter_1/battery_control_mode' && e.new_value === 'Charge',
      );
      assert.ok(
        charged.length >= 1 && charged.every((e) => e.result === 'ok'),
        'the charge command is audited via planner',
      );

      // Through the day to the evening peak: the bank is spent on the dear hours.
      for (let t = 0; t < 13; t++) await step(server, clock, 4 * QUARTER);
      const before = (await valuesOf(server)).get('battery_1/state_of_charge') as number;
      const evening = new Set<string>();
      for (let t = 0; t < 3 * 4; t++)
        evening.add(String((await step(server, clock, QUARTER)).get('inverter_1/battery_control_mode')));
      const after = (await valuesOf(server)).get('battery_1/state_of_charge') as number;
      assert.ok(after < before - 5, `the bank is used in the evening: ${before} -> ${after} %`);
      assert.ok(
        !evening.has('Charge') && !evening.has('Hold'),
        `no charging or holding at the peak: ${[...evening].join(', ')}`,
      );
    } finally {
      await server.close();
    }
  });

  test("a user's own write pauses the planner for the slot; the planner stopping sends the inverter back to Normal", async () => {
    const clock = new ManualClock(EVENING_BEFORE + 6 * 3_600_000); // 03:00 local: the cheapest hour
    const server = await start(clock, { mode: 'active' });
    try {
      await valuesWhen(server, (v) => v.get('inverter_1/battery_control_mode') === 'Charge', 'the planner charging');
      const user = await write(server, 'inverter_1/battery_control_mode', 'Hold');
      assert.equal(user.status, 200, user.body);
      const paused = await valuesWhen(server, (v) => String(v.get(`${P}/status`)).startsWith('paused:'), 'paused');
      assert.match(
        String(paused.get(`${P}/status`)),
        /inverter_1\/battery_control_mode to Hold \(via rest\); resuming at 03:15/,
      );
      await step(server, clock, 60_000);
      assert.equal(
        (await valuesOf(server)).get('inverter_1/battery_control_mode'),
        'Hold',
        'not fought within the slot',
      );
      await step(server, clock, QUARTER);
      await valuesWhen(
        server,
        (v) => v.get('inverter_1/battery_control_mode') === 'Charge',
        'resumed in the next slot',
      );

      const stopped = await server.api('/api/v1/plugins/planner', {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ enabled: false }),
      });
      assert.equal(stopped.status, 200, await stopped.text());
      await valuesWhen(
        server,
        (v) => v.get('inverter_1/battery_control_mode') === 'Normal',
        'Normal after the planner stopped',
      );
      const last = (await audit(server)).find((e) => e.topic === 'inverter_1/battery_control_mode');
      assert.equal(last?.via, 'planner');
      assert.equal(last?.new_value, 'Normal');
    } finally {
      await server.close();
    }
  });

  test('without prices the inverter goes back to Normal and the status says why', async () => {
    const clock = new ManualClock(EVENING_BEFORE + 6 * 3_600_000);
    const server = await start(clock, { mode: 'active' });
    try {
      await valuesWhen(server, (v) => v.get('inverter_1/battery_control_mode') === 'Charge', 'the planner charging');
      // Three days on, the demo prices (today and tomorrow, fetched hourly) have run out.
      const v = await step(server, clock, 3 * 86_400_000);
      assert.equal(v.get('inverter_1/battery_control_mode'), 'Normal');
      assert.match(String(v.get(`${P}/status`)), /^normal: no price for now/);
      assert.equal(v.get(`${P}/planned_mode`), null);
    } finally {
      await server.close();
    }
  });
});
