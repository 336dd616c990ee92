// The battery planner in the real server with a manual clock and the simulator, through a
// cheap night and a dear evening: dry-run plans and writes nothing; switched to active it
// charges the bank in the cheap hours and spends it at the evening peak, through the
// audited write path (via planner).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ManualClock } from '@heliograph/core/clock';
import { audit } from '../drivers/battery-control.js';
import { valuesOf, valuesWhen, write } from '../drivers/driver-api.js';
import { EVENING_BEFORE, P, QUARTER, start, step } from './planner-setup.js';

describe('battery planner on the simulator, night and evening', () => {
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
      // The plan's saving over its whole horizon (the price book's currency), in the discovery.
      const saving = await valuesWhen(
        server,
        (v) => typeof v.get(`${P}/saving_planned`) === 'number',
        'saving_planned',
      );
      const planned = saving.get(`${P}/saving_planned`) as number;
      assert.ok(planned > 0, `the plan saves something over its horizon: ${planned}`);
      const rows = (await (await server.api(`/api/v1/metrics?topic=${P}/saving_*&discovery`)).json()) as Array<{
        topic: string;
        name: string;
        platform: string;
      }>;
      assert.deepEqual(
        rows.map((r) => [r.topic, r.name, r.platform]),
        [
          [`${P}/saving_planned`, 'Estimated saving over the plan', 'sensor'],
          [`${P}/saving_today`, 'Estimated saving today', 'sensor'],
        ],
      );

      const switched = await write(server, `${P}/mode`, 'active');
      assert.equal(switched.status, 200, switched.body);

      // Through the night: the planner charges in the cheap hours (the rest of the bank's
      // charge comes from the cheap midday hours tomorrow, as the demo prices have them).
      const modes = new Set<string>();
      let low = 100;
      let risen = 0;
      for (let t = 0; t < 9; t++) {
        const v = await step(server, clock, 4 * QUARTER);
        const soc = v.get('battery_1/state_of_charge') as number;
        modes.add(String(v.get('inverter_1/battery_control_mode')));
        low = Math.min(low, soc);
        risen = Math.max(risen, soc - low);
      }
      assert.ok(modes.has('Charge'), `charged at night (modes seen: ${[...modes].join(', ')})`);
      assert.ok(risen > 10, `the bank's charge rose in the night by ${risen.toFixed(1)} points`);
      const charged = (await audit(server)).filter(
        (e) => e.via === 'planner' && e.topic === 'inverter_1/battery_control_mode' && e.new_value.startsWith('Charge'),
      );
      assert.ok(
        charged.length >= 1 && charged.every((e) => e.result === 'ok'),
        'the charge command is audited via planner',
      );

      // Through the day to the evening peak: the bank is spent on the dear hours.
      for (let t = 0; t < 11; t++) await step(server, clock, 4 * QUARTER);
      const before = (await valuesOf(server)).get('battery_1/state_of_charge') as number;
      const evening = new Set<string>();
      for (let t = 0; t < 3; t++)
        evening.add(String((await step(server, clock, 4 * QUARTER)).get('inverter_1/battery_control_mode')));
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
});
