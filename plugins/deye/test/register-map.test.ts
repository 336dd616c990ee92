// The Deye maps' PV string powers are signed where kellerza/sunsynk reads them signed
// (single_phase.py Sensor(186, "PV1 power", WATT, -1); three_phase_common.py
// Sensor(672, "PV1 power", WATT, -1)) and unsigned tens of watts on HV units
// (three_phase_hv.py Sensor(672, "PV1 power", WATT, 10)): a unit reporting a few watts below
// zero reads -3 W, not 65533 W.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readRegisterMap, type ModbusClient } from '@heliograph/plugins-sdk/connections';
import { deyeMaps } from '../src/register-map.js';

/** A device whose holding registers are `words` (others read 0); readRegisterMap only reads. */
function fakeDevice(words: Record<number, number>): ModbusClient {
  const read = ({ address, count }: { address: number; count: number }) =>
    Promise.resolve(Array.from({ length: count }, (_, i) => words[address + i] ?? 0));
  const reads: Pick<ModbusClient, 'readHoldingRegisters' | 'readInputRegisters'> = {
    readHoldingRegisters: read,
    readInputRegisters: read,
  };
  return reads as ModbusClient;
}

const maps = deyeMaps({ ratedW: 5000, gridPowerSource: 'auto' });

test('single-phase PV string powers are signed (186, 187)', async () => {
  const values = await readRegisterMap(fakeDevice({ 186: 0xfffd, 187: 1200 }), 1, maps['single-phase']);
  assert.equal(values.inverter['pv_power_1'], -3);
  assert.equal(values.inverter['pv_power'], 1197);
});

test('three-phase LV PV string powers are signed watts, HV ones unsigned tens of watts (672, 673)', async () => {
  const words = { 672: 0xfffe, 673: 0x9000 };
  const lv = await readRegisterMap(fakeDevice(words), 1, maps['three-phase-lv']);
  assert.equal(lv.inverter['pv_power_1'], -2);
  const hv = await readRegisterMap(fakeDevice(words), 1, maps['three-phase-hv']);
  assert.equal(hv.inverter['pv_power_2'], 0x9000 * 10);
});
