// The emulated charge point's smart charging (OCPP 1.6 §3.13): which profile gives the limit
// at a moment (stack level, purpose, validity, schedule duration), and the meter values the
// central system reads from what chargers send (§7.44 defaults included).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ProfileStore } from '../src/emulator/profiles.js';
import { readMeterValues, type ChargingProfile } from '../src/ocpp16.js';

const T0 = Date.parse('2026-06-21T10:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();
const FALLBACK = { currentA: 16, phases: 3 as const };

function profile(
  over: Partial<ChargingProfile> & { limit: number; durationS?: number; phases?: number },
): ChargingProfile {
  const { limit, durationS, phases, ...rest } = over;
  return {
    chargingProfileId: 1,
    stackLevel: 1,
    chargingProfilePurpose: 'TxDefaultProfile',
    chargingProfileKind: 'Absolute',
    chargingSchedule: {
      startSchedule: iso(T0),
      ...(durationS === undefined ? {} : { duration: durationS }),
      chargingRateUnit: 'A',
      chargingSchedulePeriod: [{ startPeriod: 0, limit, ...(phases === undefined ? {} : { numberPhases: phases }) }],
    },
    ...rest,
  };
}

test('a profile applies from its start to its validTo and its duration, then the default again', () => {
  const store = new ProfileStore();
  store.set(0, profile({ limit: 6, validTo: iso(T0 + 1800_000), durationS: 1800 }));
  assert.deepEqual(store.limitAt(T0 - 1, null, FALLBACK).source, 'default', 'before its start');
  assert.equal(store.limitAt(T0, null, FALLBACK).currentA, 6);
  assert.equal(store.limitAt(T0 + 1799_000, null, FALLBACK).currentA, 6);
  assert.deepEqual(store.limitAt(T0 + 1800_000, null, FALLBACK), { ...FALLBACK, source: 'default' }, 'the lease ended');
  store.set(0, profile({ limit: 8, durationS: 60 }));
  assert.equal(store.limitAt(T0 + 60_000, null, FALLBACK).source, 'default', 'the schedule duration ends it too');
});

test('a TxProfile of the running transaction wins over a TxDefaultProfile; the higher stack level within a purpose', () => {
  const store = new ProfileStore();
  store.set(0, profile({ limit: 10 }));
  store.set(0, profile({ chargingProfileId: 2, stackLevel: 3, limit: 12 }));
  assert.equal(store.limitAt(T0, null, FALLBACK).currentA, 12, 'stack level 3 over 1');
  store.set(
    1,
    profile({ chargingProfileId: 3, chargingProfilePurpose: 'TxProfile', transactionId: 7, limit: 0, phases: 1 }),
  );
  assert.deepEqual(store.limitAt(T0, 7, FALLBACK), { currentA: 0, phases: 1, source: 'TxProfile 3' });
  assert.equal(store.limitAt(T0, 8, FALLBACK).currentA, 12, "another transaction's TxProfile does not apply");
  store.endTransaction(7);
  assert.equal(store.limitAt(T0, 7, FALLBACK).currentA, 12, 'a TxProfile ends with its transaction');
});

test('the same id, or the same stack level and purpose, replaces a profile; Clear by criteria', () => {
  const store = new ProfileStore();
  store.set(0, profile({ limit: 10 }));
  store.set(0, profile({ chargingProfileId: 9, limit: 7 }));
  assert.equal(store.list().length, 1, 'same stack level and purpose on the connector');
  assert.equal(store.clear({ chargingProfilePurpose: 'TxProfile' }), false);
  assert.equal(store.clear({ chargingProfilePurpose: 'TxDefaultProfile', stackLevel: 1 }), true);
  assert.equal(store.list().length, 0);
});

test('meter values: power, energy in kWh or Wh (Wh and the register by default), current per phase, SoC', () => {
  const reading = readMeterValues([
    {
      timestamp: iso(T0),
      sampledValue: [
        { value: '12.5' },
        { value: '7.4', measurand: 'Power.Active.Import', unit: 'kW' },
        { value: '10.7', measurand: 'Current.Import', phase: 'L1', unit: 'A' },
        { value: '10.6', measurand: 'Current.Import', phase: 'L2', unit: 'A' },
        { value: '61', measurand: 'SoC', unit: 'Percent', location: 'EV' },
      ],
    },
  ]);
  assert.deepEqual(reading, { energyWh: 12.5, powerW: 7400, currentA: [10.7, 10.6, undefined], soc: 61 });
  const perPhase = readMeterValues([
    {
      timestamp: iso(T0),
      sampledValue: [
        { value: '1000', measurand: 'Power.Active.Import', phase: 'L1-N', unit: 'W' },
        { value: '1100', measurand: 'Power.Active.Import', phase: 'L2-N', unit: 'W' },
        { value: '2.5', measurand: 'Energy.Active.Import.Register', unit: 'kWh' },
      ],
    },
  ]);
  assert.deepEqual(perPhase, { powerW: 2100, energyWh: 2500 });
});
