// The analog-values reply (CID2 0x42) laid out as python-pylontech parses it
// (`get_values_single_fmt`): cell count and voltages, temperature count, the BMS board's
// temperature ("AverageBMSTemperature") first, then the cell groups' ("GroupedCellsTemperatures"),
// in Kelvin × 10; current, voltage, capacities, cycles.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analogValues } from '../src/analog.js';

const hex = (value: number, bytes: number) =>
  (value & (2 ** (8 * bytes) - 1))
    .toString(16)
    .toUpperCase()
    .padStart(2 * bytes, '0');
const kelvin10 = (celsius: number) => hex(Math.round(2731 + celsius * 10), 2);

test('cell temperatures apart from the BMS board: cells at -3.5 °C read -3.5 °C', () => {
  const info =
    hex(0x11, 1) + // INFOFLAG
    hex(2, 1) + // address
    hex(3, 1) +
    [3300, 3301, 3302].map((mv) => hex(mv, 2)).join('') +
    hex(5, 1) +
    kelvin10(10) +
    [-3.5, -3.5, -3.5, -3.5].map(kelvin10).join('') +
    hex(-52, 2) + // -5.2 A
    hex(49_900, 2) +
    hex(25_000, 2) +
    hex(2, 1) +
    hex(50_000, 2) +
    hex(17, 2);
  const values = analogValues(info);
  assert.equal(values.temperature, -3.5);
  assert.equal(values.cell_temperature_min, -3.5);
  assert.equal(values.cell_temperature_max, -3.5);
  assert.equal(values.bms_temperature, 10);
  assert.equal(values.current, -5.2);
  assert.equal(values.state_of_charge, 50);
  assert.equal(values.cycles, 17);
});
