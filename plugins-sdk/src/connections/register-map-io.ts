/*
 * Using a register map: read every value with the planned requests, and declare the
 * metrics and writable settings of one device, with write handlers that check the write by
 * reading the register back.
 */
import type { MetricDeclaration, MetricValue, SettingDeclaration } from '../context.js';
import { DeviceRefusedError } from '../errors.js';
import type { ModbusClient } from './modbus.js';
import type { RegisterEntry, RegisterMap } from './register-map.js';
import { decodeEntry, encodeEntry, registerCount } from './register-values.js';

/**
 * Values read from a register map, by device kind, then by entry name.
 *
 * @example
 * { inverter: { pv_power: 1830, grid_power: -420 }, battery: { state_of_charge: 87 } }
 */
export type RegisterMapValues = Record<'inverter' | 'battery', Record<string, MetricValue>>;

/**
 * Reads every entry of `map` from device `unitId`, one request per planned block, in order.
 * A failed request fails the whole read (ModbusExceptionError, NoAnswerError).
 *
 * @example
 * const values = await readRegisterMap(modbus, config.unitId, deyeMap, { signal });
 * ctx.topics.publish({ device: 'inverter_1', values: values.inverter });
 * ctx.topics.publish({ device: 'battery_1', values: values.battery });
 */
export async function readRegisterMap(
  modbus: ModbusClient,
  unitId: number,
  map: RegisterMap,
  options: { signal?: AbortSignal; timeoutMs?: number } = {},
): Promise<RegisterMapValues> {
  const values: RegisterMapValues = { inverter: {}, battery: {} };
  for (const block of map.blocks) {
    const request = { unitId, address: block.address, count: block.count, ...options };
    const words =
      block.table === 'input' ? await modbus.readInputRegisters(request) : await modbus.readHoldingRegisters(request);
    for (const entry of block.entries) {
      const start = entry.address - block.address;
      values[entry.device ?? 'inverter'][entry.name] = decodeEntry(
        entry,
        words.slice(start, start + registerCount(entry)),
      );
    }
  }
  return values;
}

/**
 * The metric and setting declarations of one device kind in `map`: read-only entries become
 * metrics, writable ones settings whose handlers write the register, read it back, and
 * throw DeviceRefusedError when it does not hold the written value.
 *
 * @example
 * ctx.topics.declare({
 *   device: 'inverter_1',
 *   pollIntervalMs: config.pollIntervalMs,
 *   ...registerMapDeclarations(deyeMap, { device: 'inverter', modbus, unitId: config.unitId }),
 * });
 */
export function registerMapDeclarations(
  map: RegisterMap,
  {
    device,
    modbus,
    unitId,
    timeoutMs,
  }: { device: 'inverter' | 'battery'; modbus: ModbusClient; unitId: number; timeoutMs?: number },
): { metrics: MetricDeclaration[]; settings: SettingDeclaration[] } {
  const entries = map.registers.filter((entry) => (entry.device ?? 'inverter') === device);
  return {
    metrics: entries.filter((entry) => !entry.writable).map(metricOf),
    settings: entries.filter((entry) => entry.writable).map((entry) => settingOf(entry, modbus, unitId, timeoutMs)),
  };
}

function metricOf(entry: RegisterEntry): MetricDeclaration {
  const { name, displayName, unit, group, recorded, deviceClass, stateClass } = entry;
  return {
    name,
    displayName,
    type: entry.type === 'string' || entry.options ? 'string' : 'number',
    ...defined({ unit, group, recorded, deviceClass, stateClass }),
  };
}

function settingOf(entry: RegisterEntry, modbus: ModbusClient, unitId: number, timeoutMs?: number): SettingDeclaration {
  const { name, displayName, unit, deviceClass, stateClass } = entry;
  const address = entry.address;
  // An options setting is handed the option's register value, a range setting the number.
  const write = async ({ value, signal }: { value: number | string; signal: AbortSignal }): Promise<void> => {
    const words = encodeEntry(entry, value);
    const request = { unitId, address, signal, ...(timeoutMs === undefined ? {} : { timeoutMs }) };
    await modbus.writeRegisters({ ...request, values: words });
    const back = await modbus.readHoldingRegisters({ ...request, count: words.length });
    if (back.some((word, i) => word !== words[i])) {
      throw new DeviceRefusedError({
        answer: `register ${address} holds ${decodeEntry(entry, back)} after writing ${decodeEntry(entry, words)}`,
      });
    }
  };
  const common = { name, displayName, ...defined({ unit, deviceClass, stateClass }), write };
  if (entry.writable === true) return { ...common, options: [...(entry.options ?? [])] };
  const { min, max, step } = entry.writable!;
  return { ...common, min, max, ...defined({ step }) };
}

/** `obj` without its undefined fields: a key left out means "derive it" to the core, unlike a key set to undefined. */
function defined<T extends object>(obj: T): Partial<T> {
  return Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined)) as Partial<T>;
}
