/*
 * What the growatt driver tests read the same way on every family with the storage block
 * (input 1000..1124 of the Growatt Inverter Modbus RTU Protocol v1.24): its u32 words in
 * tenths, decoded as the protocol says, against what the server shows.
 */
import assert from 'node:assert/strict';
import type { TestServer } from '../helpers/server.js';
import { valuesWhen } from './driver-api.js';

/** What the storage block is read from: a unit's input registers. */
export interface InputRegisters {
  readInputRegisters(request: { address: number; count: number }): number[];
}

/** Public decode: a u32 (high word first) in tenths at `address` of the input registers. */
export const u32Tenths = (device: InputRegisters, address: number) => {
  const [high, low] = device.readInputRegisters({ address, count: 2 });
  return (high! * 0x10000 + low!) / 10;
};

/** Waits until the battery's SOC is published: the driver has read the unit. */
export const live = (server: TestServer) =>
  valuesWhen(server, (v) => typeof v.get('battery_1/state_of_charge') === 'number', 'battery_1 published');

/**
 * The storage block's powers as the server shows them (`values`), the battery charging at noon
 * (`charging` says why): the battery's power + charging (1011-1012 Pcharge less 1009-1010
 * Pdischarge) on the battery and on the inverter, and the grid's + import (1021-1022
 * Pactouser less 1029-1030 Pactogrid).
 */
export function assertStoragePowers(values: Map<string, unknown>, device: InputRegisters, charging: string): void {
  const charge = u32Tenths(device, 1011);
  const discharge = u32Tenths(device, 1009);
  assert.ok(charge > 0, charging);
  assert.equal(values.get('battery_1/power'), charge - discharge, '+ charging');
  assert.equal(values.get('inverter_1/battery_power'), charge - discharge);
  assert.equal(values.get('inverter_1/grid_power'), u32Tenths(device, 1021) - u32Tenths(device, 1029), '+ import');
}
