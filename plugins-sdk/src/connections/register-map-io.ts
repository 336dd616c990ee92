/*
 * Using a register map: read every value with the planned requests, and declare the
 * metrics and writable settings of one device, with write handlers that check the write by
 * reading the register back.
 */
import type { MetricDeclaration, MetricValue, SettingDeclaration } from '../context.js';
import { DeviceRefusedError } from '../errors.js';
import type { ModbusClient } from './modbus.js';
import type { DerivedEntry, RegisterEntry, RegisterMap } from './register-map.js';
import { decodeEntry, deriveValues, encodeEntry, mergeBits, registerCount } from './register-values.js';

/**
 * Values read from a register map, by device kind, then by entry name.
 *
 * @example
 * { inverter: { pv_power: 1830, grid_power: -420 }, battery: { state_of_charge: 87 } }
 */
export type RegisterMapValues = Record<'inverter' | 'battery', Record<string, MetricValue>> & {
  /** The `internal` entries' values (read or derived, never published), by device kind. */
  internal: Record<'inverter' | 'battery', Record<string, MetricValue>>;
};

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
  const all: Record<'inverter' | 'battery', Record<string, MetricValue>> = { inverter: {}, battery: {} };
  for (const block of map.blocks) {
    const request = { unitId, address: block.address, count: block.count, ...options };
    const words =
      block.table === 'input' ? await modbus.readInputRegisters(request) : await modbus.readHoldingRegisters(request);
    for (const entry of block.entries) {
      const start = entry.address - block.address;
      all[entry.device ?? 'inverter'][entry.name] = decodeEntry(
        entry,
        words.slice(start, start + registerCount(entry)),
      );
    }
  }
  const values: RegisterMapValues = { inverter: {}, battery: {}, internal: { inverter: {}, battery: {} } };
  for (const device of ['inverter', 'battery'] as const) {
    deriveValues(
      map.derived.filter((entry) => (entry.device ?? 'inverter') === device),
      all[device],
    );
    const internal = new Set(
      [...map.registers, ...map.derived]
        .filter((entry) => entry.internal && (entry.device ?? 'inverter') === device)
        .map((entry) => entry.name),
    );
    for (const [name, value] of Object.entries(all[device]))
      (internal.has(name) ? values.internal[device] : values[device])[name] = value;
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
  const entries = map.registers.filter((entry) => (entry.device ?? 'inverter') === device && !entry.internal);
  const derived = map.derived.filter((entry) => (entry.device ?? 'inverter') === device && !entry.internal);
  return {
    metrics: [...entries.filter((entry) => !entry.writable).map(metricOf), ...derived.map(derivedMetricOf)],
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

function derivedMetricOf(entry: DerivedEntry): MetricDeclaration {
  const { name, displayName, unit, group, recorded, deviceClass, stateClass } = entry;
  return { name, displayName, type: 'number', ...defined({ unit, group, recorded, deviceClass, stateClass }) };
}

function settingOf(entry: RegisterEntry, modbus: ModbusClient, unitId: number, timeoutMs?: number): SettingDeclaration {
  const { name, displayName, unit, deviceClass, stateClass } = entry;
  const address = entry.address;
  // An options setting is handed the option's register value, a range setting the number.
  const write = async ({ value, signal }: { value: number | string; signal: AbortSignal }): Promise<void> => {
    const request = { unitId, address, signal, ...(timeoutMs === undefined ? {} : { timeoutMs }) };
    // A bit field changes only its bits: the register is read first.
    const words =
      entry.mask === undefined
        ? encodeEntry(entry, value)
        : [mergeBits(entry, (await modbus.readHoldingRegisters({ ...request, count: 1 }))[0]!, value)];
    if (entry.writeSingle && words.length === 1) await modbus.writeRegister({ ...request, value: words[0]! });
    else await modbus.writeRegisters({ ...request, values: words });
    const back = await modbus.readHoldingRegisters({ ...request, count: words.length });
    if (back.some((word, i) => word !== words[i])) {
      throw new DeviceRefusedError({
        answer: `register ${address} holds ${String(decodeEntry(entry, back))} after writing ${String(decodeEntry(entry, words))}`,
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

/**
 * The register words that make `map` read as `values` (by device kind, then entry name;
 * internal entries included, derived ones not, since they are computed): for a device
 * emulator built from the driver's own map. Entries without a value stay out; bit fields
 * are merged into their register.
 *
 * @example
 * const { input, holding } = registerMapImage(growattMap, { inverter: { pv_power_1: 1830 }, battery: { state_of_charge: 87 } });
 * input.get(1014); // 87
 */
export function registerMapImage(
  map: RegisterMap,
  values: Partial<Record<'inverter' | 'battery', Record<string, number | string>>>,
): Record<'holding' | 'input', Map<number, number>> {
  const image = { holding: new Map<number, number>(), input: new Map<number, number>() };
  for (const entry of map.registers) {
    const value = values[entry.device ?? 'inverter']?.[entry.name];
    if (value === undefined) continue;
    const table = image[entry.table ?? 'holding'];
    if (entry.mask !== undefined) {
      table.set(entry.address, mergeBits(entry, table.get(entry.address) ?? 0, value));
      continue;
    }
    const words =
      entry.type === 'string'
        ? Array.from({ length: registerCount(entry) }, (_, i) => {
            const bytes = Buffer.alloc(2);
            bytes.write(String(value).slice(2 * i, 2 * i + 2), 'latin1');
            return bytes.readUInt16BE(0);
          })
        : encodeEntry(entry, value);
    words.forEach((word, i) => table.set(entry.address + i, word));
  }
  return image;
}
