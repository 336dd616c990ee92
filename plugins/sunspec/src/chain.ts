/*
 * Finding a SunSpec device's models: the "SunS" marker at one of the standard base
 * addresses, then the chain of [ID, L, L data registers] blocks up to ID 0xFFFF; and
 * reading the models a poll needs in as few requests as the 125-register limit allows.
 */
import { ModbusExceptionError, type ModbusClient } from '@heliograph/plugins-sdk/connections';
import { ModelData } from './points.js';

/** Where SunSpec devices put "SunS", in the order the specification says to try them. */
export const BASE_ADDRESSES = [40000, 0, 50000] as const;
const SUNS = [0x5375, 0x6e53];
const END = 0xffff;
/** Most registers in one Modbus read. */
const MAX_COUNT = 125;
/** A chain longer than this is junk, not models. */
const MAX_MODELS = 100;

/** One model in the chain: its ID and where its data registers are. */
export interface ModelLocation {
  id: number;
  /** Address of the first data register (after ID and L). */
  address: number;
  length: number;
}

/** A device's model chain. */
export interface Chain {
  base: number;
  models: ModelLocation[];
}

/** What a read needs: the Modbus client, the unit and the poll's abort signal. */
export interface ReadTarget {
  modbus: ModbusClient;
  unitId: number;
  signal?: AbortSignal;
}

/**
 * Finds "SunS" and walks the model chain. Undefined when no base address holds the marker;
 * a device that does not answer throws NoAnswerError.
 */
export async function discoverChain(target: ReadTarget): Promise<Chain | undefined> {
  for (const base of BASE_ADDRESSES) {
    const marker = await readOrRefused(target, base, 2);
    if (marker && marker[0] === SUNS[0] && marker[1] === SUNS[1]) return { base, models: await walk(target, base + 2) };
  }
  return undefined;
}

async function walk(target: ReadTarget, from: number): Promise<ModelLocation[]> {
  const models: ModelLocation[] = [];
  let at = from;
  while (models.length < MAX_MODELS && at + 2 <= 0x10000) {
    // A device that ends its chain without the marker refuses to read past it.
    const header = await readOrRefused(target, at, 2);
    if (!header || header[0] === END) break;
    const [id, length] = header as [number, number];
    models.push({ id, address: at + 2, length });
    at += 2 + length;
  }
  return models;
}

/** The registers, or undefined when the device refuses the address (Modbus exception 02). */
async function readOrRefused(target: ReadTarget, address: number, count: number): Promise<number[] | undefined> {
  try {
    return await read(target, address, count);
  } catch (err) {
    if (err instanceof ModbusExceptionError && err.code === 2) return undefined;
    throw err;
  }
}

function read({ modbus, unitId, signal }: ReadTarget, address: number, count: number): Promise<number[]> {
  return modbus.readHoldingRegisters({ unitId, address, count, signal });
}

/**
 * Reads the data of `models`: neighbours in the chain share a request while it stays
 * within 125 registers; a model longer than that takes several.
 *
 * @example
 * const [inverter, meter] = await readModels(target, [chain.models[1], chain.models[3]]);
 */
export async function readModels(target: ReadTarget, models: readonly ModelLocation[]): Promise<ModelData[]> {
  const registers = new Map<number, number>();
  for (const span of planReads(models)) {
    const words = await read(target, span.address, span.count);
    words.forEach((word, i) => registers.set(span.address + i, word));
  }
  return models.map(
    (model) =>
      new ModelData(
        model.id,
        Array.from({ length: model.length }, (_, i) => registers.get(model.address + i)!),
      ),
  );
}

/** The requests that cover `models`' data: [address, count] spans of at most 125 registers. */
export function planReads(models: readonly ModelLocation[]): Array<{ address: number; count: number }> {
  const spans: Array<{ address: number; count: number }> = [];
  const sorted = [...models].filter((m) => m.length > 0).sort((a, b) => a.address - b.address);
  for (const model of sorted) {
    let address = model.address;
    const end = model.address + model.length;
    const last = spans.at(-1);
    // Join the previous request when the whole model (and the headers between) still fits.
    if (last && end - last.address <= MAX_COUNT && address >= last.address + last.count) {
      last.count = end - last.address;
      continue;
    }
    while (address < end) {
      const count = Math.min(MAX_COUNT, end - address);
      spans.push({ address, count });
      address += count;
    }
  }
  return spans;
}
