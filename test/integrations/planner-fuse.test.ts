// The grid import limit at execution: the planner charges the simulator's battery in the
// cheapest hour, a load the plan did not foresee (a heat pump behind the meter) lifts the
// metered import above the limit, and the charge power is lowered to what the limit leaves
// (an audited write, said in the status); back under the limit, the plan's power returns.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ManualClock } from '@heliograph/core/clock';
import { WriteService } from '@heliograph/core/testing';
import { audit } from '../drivers/battery-control.js';
import { valuesOf, valuesWhen } from '../drivers/driver-api.js';
import type { TestServer } from '../helpers/server.js';
import { EVENING_BEFORE, P, start, step } from './planner-setup.js';

// A small connection: the plan charges through every cheap quarter of the night at what the
// limit leaves over the forecast load, so 03:00 is a Charge whichever plan is made.
const LIMIT_W = 800;

/** The simulator's battery from 30 %, the site's meter (its grid power is what the test publishes) and the planner holding to the limit. */
function startSite(clock: ManualClock): Promise<TestServer> {
  return start(
    clock,
    {
      mode: 'active',
      gridImportLimitW: LIMIT_W,
      gridPowerTopic: 'meter_1/grid_power',
      // Never published: the load forecast stays at its 500 W default, the plan as made first.
      loadTopic: 'meter_1/load_power',
    },
    { fixtures: ['scripted-site'], plugins: [{ id: 'meter', plugin: 'scripted-site', devices: ['meter_1'] }] },
  );
}

function meter(server: TestServer, gridW: number): void {
  const { registry } = server;
  registry.publish(registry.get('meter_1/grid_power')!, gridW);
  registry.flush();
}

/**
 * The meter reads `siteW` plus what the battery is told to charge at, updated at every write
 * (a meter that lags the battery would have the fuse chase its own last step); then a few
 * checks of the planner within the quarter hour.
 */
async function siteLoad(server: TestServer, clock: ManualClock, siteW: number): Promise<Map<string, unknown>> {
  const { registry } = server;
  const charging = () => registry.visibleValue(registry.get('inverter_1/battery_control_power')!) as number;
  const writes = server.services.resolve(WriteService);
  const follow = () => meter(server, siteW + charging());
  writes.events.on('written', follow);
  try {
    follow();
    for (let k = 0; k < 4; k++) await step(server, clock, 150, []);
    return await valuesOf(server);
  } finally {
    writes.events.off('written', follow);
  }
}

describe('the grid import limit at execution', () => {
  test('import above the limit lowers the charge power, audited and said; under it the plan returns', async () => {
    const clock = new ManualClock(EVENING_BEFORE + 6 * 3_600_000); // 03:00 local: the cheapest hour
    const server = await startSite(clock);
    try {
      meter(server, 200); // the house at night
      const charging = await valuesWhen(
        server,
        (v) => v.get('inverter_1/battery_control_mode') === 'Charge' && typeof v.get(`${P}/planned_power`) === 'number',
        'the planner charging',
      );
      const planned = charging.get(`${P}/planned_power`) as number;
      assert.ok(planned >= 200 && planned <= LIMIT_W, `a planned charge within the limit (${planned} W)`);
      assert.equal(charging.get('inverter_1/battery_control_power'), planned);

      // A 400 W heat pump starts: 100 W over the limit with the planned charging. The meter
      // reads the house, the heat pump and what the battery charges at, one check late.
      const houseW = 200;
      const heatPumpW = 400;
      const expected = LIMIT_W - houseW - heatPumpW;
      const lowered = await siteLoad(server, clock, houseW + heatPumpW);
      assert.equal(lowered.get('inverter_1/battery_control_power'), expected, 'charging takes what the limit leaves');
      assert.equal(lowered.get('inverter_1/battery_control_mode'), 'Charge');
      assert.match(
        String(lowered.get(`${P}/status`)),
        new RegExp(
          `^active: Charge on inverter_1; charge lowered from ${planned} W to ${expected} W: the grid imports \\d+ W, the limit is ${LIMIT_W} W`,
        ),
      );
      // The lowered command is one write: the mode with its power and target (SDK 1.4).
      const entry = (await audit(server)).find((e) => e.topic === 'inverter_1/battery_control_mode');
      assert.equal(entry?.via, 'planner');
      assert.match(entry?.new_value ?? '', new RegExp(`^Charge, ${expected} W, \\d+ %$`));

      // The heat pump stops: the plan's charge power again.
      const back = await siteLoad(server, clock, houseW);
      assert.equal(back.get('inverter_1/battery_control_power'), planned);
      assert.doesNotMatch(String(back.get(`${P}/status`)), /lowered/);
    } finally {
      await server.close();
    }
  });
});
