/// <reference types="node" />
// The Site tab says which zone its default is: the device's own, as the service reports it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { systemZone } from '../screens/site.js';

const settings = (timeZone: string | null) => ({
  site: { name: 'Home', timeZone, latitude: 0, longitude: 0, temperatureUnit: 'C' },
  energy: { resetPeriod: 'weekly' },
  prices: { multiplier: 1, offset: 0 },
});

test("the default zone is named: the service's system_time_zone, else the zone in force while none is chosen", () => {
  assert.equal(systemZone({ ...settings(null), time_zone: 'UTC' }), 'UTC');
  assert.equal(systemZone({ ...settings('Europe/Berlin'), time_zone: 'Europe/Berlin' }), undefined);
  assert.equal(
    systemZone({ ...settings('Europe/Berlin'), time_zone: 'Europe/Berlin', system_time_zone: 'UTC' }),
    'UTC',
  );
});
