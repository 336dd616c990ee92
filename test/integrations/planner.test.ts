// The battery planner in the real server with a manual clock and the simulator: a user's
// own write pauses it for the slot; the planner stopping, missing prices and a refused write
// send the inverter back to Normal and say why; a forced command is written again each
// quarter hour (its lease); a second planner on the same battery is refused; a device that
// cannot bound a command gets no Charge unless the owner accepts it; a restart keeps the mode
// and the plan's absolute quarter hours.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ManualClock } from '@heliograph/core/clock';
import { audit } from '../drivers/battery-control.js';
import { valuesOf, valuesWhen, write } from '../drivers/driver-api.js';
import { EVENING_BEFORE, P, plannerModes, QUARTER, start, step } from './planner-setup.js';

/** 03:00, the cheapest hour: the active planner on the refusing-battery fixture, which takes every command. */
async function chargingAtThree() {
  const clock = new ManualClock(EVENING_BEFORE + 6 * 3_600_000);
  const server = await start(
    clock,
    { mode: 'active', device: 'inverter_2' },
    { plugins: [{ id: 'refuser', plugin: 'refusing-battery', devices: ['inverter_2'], config: { refuse: 'none' } }] },
  );
  return { clock, server };
}

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
      // The answer comes once the planner has stopped: Normal is written by then.
      assert.equal((await valuesOf(server)).get('inverter_1/battery_control_mode'), 'Normal');
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

  test('a forced command is written again every quarter hour, so its lease on the device never runs out', async () => {
    // The fixture's state of charge stays at 30 %: at 03:00, the cheapest hour, the plan
    // charges in every quarter hour, so each write of the mode is a renewal.
    const { clock, server } = await chargingAtThree();
    try {
      const first = await valuesWhen(
        server,
        (v) => v.get('inverter_2/battery_control_mode') === 'Charge',
        'the planner charging',
      );
      // Each quarter hour whose planned mode is the forced one of the quarter before is a renewal:
      // the device takes the same command once more, and only once.
      let before = {
        mode: first.get('inverter_2/battery_control_mode'),
        taken: first.get('inverter_2/commands_taken'),
      };
      let renewals = 0;
      for (let q = 1; q <= 8; q++) {
        const v = await step(server, clock, QUARTER, ['refuser']);
        const now = { mode: v.get('inverter_2/battery_control_mode'), taken: v.get('inverter_2/commands_taken') };
        if (now.mode !== 'Normal' && now.mode === before.mode) {
          assert.equal(
            now.taken,
            (before.taken as number) + 1,
            `${String(now.mode)} renewed once in quarter hour ${q}`,
          );
          renewals++;
        }
        before = now;
      }
      assert.ok(renewals >= 2, `at least two renewals seen (${renewals})`);
      // Within the quarter hour the mode is not written again (a re-plan may still move the
      // power or the target, which is a new command, not a renewal).
      const modeWrites = async () => (await plannerModes(server, 'inverter_2')).length;
      const written = await modeWrites();
      await step(server, clock, 60_000, ['refuser']);
      assert.equal(await modeWrites(), written, 'no renewal within the quarter hour');
    } finally {
      await server.close();
    }
  });

  test('a second planner on the same battery is refused, naming the first; the first keeps control', async () => {
    const clock = new ManualClock(EVENING_BEFORE + 6 * 3_600_000);
    const server = await start(
      clock,
      { mode: 'active' },
      {
        plugins: [
          {
            id: 'planner2',
            plugin: 'planner',
            devices: ['planner_2'],
            config: { checkIntervalMs: 150, device: 'inverter_1' },
          },
        ],
      },
    );
    try {
      await valuesWhen(
        server,
        (v) => v.get('inverter_1/battery_control_mode') === 'Charge',
        'the first planner charging',
      );
      const second = await write(server, 'planner_2/mode', 'active');
      assert.equal(second.status, 422, second.body);
      assert.match(second.body, /inverter_1's battery is already controlled by planner: one controller per battery/);
      const v = await step(server, clock, QUARTER);
      assert.equal(v.get('planner_2/mode'), 'dry-run', 'the refused switch is not kept');
      assert.equal(
        v.get('inverter_1/battery_control_mode'),
        v.get(`${P}/planned_mode`),
        'the first planner in control',
      );
      const written = (await audit(server)).filter((e) => e.who === 'plugin:planner2' && e.result === 'ok');
      assert.deepEqual(written, [], 'the second planner wrote nothing to the battery');
    } finally {
      await server.close();
    }
  });

  test('a refused write is tried again after a back-off, and Normal is written as soon as the device takes it', async () => {
    const { clock, server } = await chargingAtThree();
    try {
      await valuesWhen(server, (v) => v.get('inverter_2/battery_control_mode') === 'Charge', 'the planner charging');
      assert.equal((await write(server, 'inverter_2/refusing', 'all')).status, 200);
      // The next quarter hour's renewal is refused, and so is Normal: the device still charges.
      let v = await step(server, clock, QUARTER, ['refuser']);
      assert.match(
        String(v.get(`${P}/status`)),
        /^normal: the write was refused: .*NAK (charge|hold); trying again at 03:15/,
      );
      assert.match(String(v.get(`${P}/status`)), /setting Normal on inverter_2 failed too: .*NAK normal/);
      assert.equal(v.get('inverter_2/battery_control_mode'), 'Charge');
      // The device takes commands again: Normal reaches it at the next check, within the back-off.
      assert.equal((await write(server, 'inverter_2/refusing', 'none')).status, 200);
      v = await step(server, clock, 1000, ['refuser']);
      assert.equal(v.get('inverter_2/battery_control_mode'), 'Normal');
      // After the back-off the plan is followed again.
      v = await step(server, clock, 30_000, ['refuser']);
      assert.notEqual(v.get(`${P}/planned_mode`), 'Normal');
      assert.equal(v.get('inverter_2/battery_control_mode'), v.get(`${P}/planned_mode`));
    } finally {
      await server.close();
    }
  });

  test('a device that cannot end a forced command by itself gets no Charge, unless the owner accepts the risk', async () => {
    const clock = new ManualClock(EVENING_BEFORE + 6 * 3_600_000);
    const device = { id: 'refuser', plugin: 'refusing-battery', devices: ['inverter_2'] };
    const config = { refuse: 'none', boundedOnDevice: false };
    const refusing = await start(clock, { mode: 'active', device: 'inverter_2' }, { plugins: [{ ...device, config }] });
    try {
      const v = await valuesWhen(
        refusing,
        (x) => String(x.get(`${P}/status`)).startsWith('active: Normal on inverter_2 (the plan says Charge, refused'),
        'the refused Charge in the status',
      );
      assert.equal(v.get('inverter_2/battery_control_lease'), 0);
      assert.equal(v.get('inverter_2/battery_control_mode'), 'Normal');
    } finally {
      await refusing.close();
    }
    const accepting = await start(
      clock,
      { mode: 'active', device: 'inverter_2', acceptUnboundedControl: true },
      { plugins: [{ ...device, config }] },
    );
    try {
      await valuesWhen(accepting, (x) => x.get('inverter_2/battery_control_mode') === 'Charge', 'Charge, accepted');
    } finally {
      await accepting.close();
    }
  });
});
