// The battery planner in the real server with a manual clock and the simulator: a user's
// own write pauses it for the slot; the planner stopping, missing prices and a refused write
// send the inverter back to Normal and say why; a restart keeps the mode and the plan's
// absolute quarter hours.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ManualClock } from '@heliograph/core/clock';
import { audit } from '../drivers/battery-control.js';
import { valuesOf, valuesWhen, write } from '../drivers/driver-api.js';
import { EVENING_BEFORE, P, QUARTER, start, step } from './planner-setup.js';

describe('battery planner on the simulator', () => {
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
      // The next slot: the pause is over and the inverter follows the plan again.
      await valuesWhen(
        server,
        (v) =>
          String(v.get(`${P}/status`)).startsWith('active:') &&
          v.get('inverter_1/battery_control_mode') === v.get(`${P}/planned_mode`),
        'the plan followed again in the next slot',
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

  test('a refused write sends the battery back to Normal and the status says why', async () => {
    const clock = new ManualClock(EVENING_BEFORE + 6 * 3_600_000);
    const server = await start(
      clock,
      { mode: 'active', device: 'inverter_2' },
      { plugins: [{ id: 'refuser', plugin: 'refusing-battery', devices: ['inverter_2'] }] },
    );
    try {
      const v = await valuesWhen(
        server,
        (x) => String(x.get(`${P}/status`)).startsWith('normal: the write was refused'),
        'the refusal in the status',
      );
      assert.match(String(v.get(`${P}/status`)), /NAK (charge|hold|discharge)/);
      assert.equal(v.get('inverter_2/battery_control_mode'), 'Normal');
      const refused = (await audit(server)).find((e) => e.topic === 'inverter_2/battery_control_mode');
      assert.equal(refused?.via, 'planner');
      assert.equal(refused?.result, 'error');
    } finally {
      await server.close();
    }
  });

  test('a restart keeps the mode and plans again from the same absolute quarter hours', async () => {
    const clock = new ManualClock(EVENING_BEFORE + 6 * 3_600_000);
    const first = await start(clock);
    await valuesWhen(first, (v) => typeof v.get(`${P}/planned_mode`) === 'string', 'a first plan');
    assert.equal((await write(first, `${P}/mode`, 'active')).status, 200);
    await valuesWhen(first, (v) => v.get('inverter_1/battery_control_mode') === 'Charge', 'charging');
    const before = (await (await first.api(`/api/v1/forecast?topic=${P}/soc_planned`)).json()) as {
      points: Array<[string, number]>;
    };
    await first.close();
    clock.advance(QUARTER);
    const second = await start(clock, {}, { dataDir: first.dataDir });
    try {
      const v = await valuesWhen(
        second,
        (x) =>
          String(x.get(`${P}/status`)).startsWith('active:') &&
          x.get('inverter_1/battery_control_mode') === x.get(`${P}/planned_mode`),
        'the planner acting on a new plan after the restart',
      );
      assert.equal(v.get(`${P}/mode`), 'active', 'the mode written through the API outlives the restart');
      const after = (await (await second.api(`/api/v1/forecast?topic=${P}/soc_planned`)).json()) as {
        points: Array<[string, number]>;
      };
      assert.equal(Date.parse(after.points[0]![0]), Date.parse(before.points[0]![0]) + QUARTER);
      assert.ok(after.points.every(([t]) => Date.parse(t) % QUARTER === 0));
    } finally {
      await second.close();
    }
  });

  test('without a PV forecast, or without a state of charge, the planner does not plan and says why', async () => {
    const clock = new ManualClock(EVENING_BEFORE + 6 * 3_600_000);
    const noForecast = await start(clock, { mode: 'active' }, { sim: { demoForecast: false } });
    try {
      const v = await valuesWhen(
        noForecast,
        (x) => x.get(`${P}/status`) === 'normal: no PV forecast for the next hours',
        'the missing forecast in the status',
      );
      assert.equal(v.get('inverter_1/battery_control_mode'), 'Normal');
      assert.equal(v.get(`${P}/planned_mode`), null);
      assert.equal((await audit(noForecast)).filter((e) => e.via === 'planner').length, 0, 'nothing to undo');
    } finally {
      await noForecast.close();
    }
    const noSoc = await start(
      clock,
      { mode: 'active', device: 'inverter_2' },
      {
        simDevices: ['inverter_1'],
        plugins: [{ id: 'refuser', plugin: 'refusing-battery', devices: ['inverter_2'], config: { soc: null } }],
      },
    );
    try {
      await valuesWhen(
        noSoc,
        (x) => x.get(`${P}/status`) === 'normal: the state of charge is missing or stale',
        'the missing state of charge in the status',
      );
    } finally {
      await noSoc.close();
    }
  });
});
