// The planner's PV calibration in the real server: its factors and the forecast's error before
// and after are published on the planner's device; with no history yet (a fresh install) every
// factor is 1, said in words, and the plan is made all the same.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ManualClock } from '@heliograph/core/clock';
import { valuesWhen } from '../drivers/driver-api.js';
import { EVENING_BEFORE, P, start } from './planner-setup.js';

test("a fresh install plans with the provider's PV forecast as it is, and says the calibration has nothing to learn from yet", async () => {
  const clock = new ManualClock(EVENING_BEFORE);
  const server = await start(clock);
  try {
    const values = await valuesWhen(
      server,
      (v) =>
        v.get(`${P}/pv_calibration`) !== undefined &&
        v.get(`${P}/pv_calibration`) !== null &&
        v.get(`${P}/planned_mode`) != null,
      'the calibration published and a plan made',
    );
    assert.equal(values.get(`${P}/pv_calibration`), 'none yet (too little history)');
    assert.equal(values.get(`${P}/pv_forecast_error_raw`), null);
    assert.equal(values.get(`${P}/pv_forecast_error`), null);
  } finally {
    await server.close();
  }
});
