/*
 * Checking a register map against its reference points (RegisterMap.references: where public
 * documents put its registers): each point is read from the device's emulator and decoded by
 * the reference alone, then compared with what the driver's own decoding (readRegisterMap)
 * publishes for the same value. The map, the emulator and the documents then have to agree:
 * an entry at a wrong address, scale or sign fails even when the emulator was built from it.
 */
import {
  readRegisterMap,
  registerMapDeclarations,
  type ModbusClient,
  type RegisterEntry,
  type RegisterMap,
  type RegisterReference,
} from '@heliograph/plugins-sdk/connections';

/** What one reading of the reference points found. */
export interface EvidenceReport {
  /** Each a sentence naming the value and what is wrong with it; empty when all is well. */
  problems: string[];
  /** The references whose registers all read 0 (see {@link checkReferences}). */
  zeros: RegisterReference[];
}

/** A reference's (or entry's) value as "device/name". */
export const key = (device: string | undefined, name: string) => `${device ?? 'inverter'}/${name}`;
const where = (table: string | undefined, address: number) => `${address} (${table ?? 'holding'})`;

/**
 * The value `words` hold as `reference` describes them: its type, word order, scale and
 * direction, or the document's label of the raw value. A bit field's mask comes from the map
 * entry, since a reference has none: the reference still fixes its register, type and scale.
 */
export function decodeReference(
  reference: RegisterReference,
  words: readonly number[],
  mask?: number,
): number | string {
  const ordered = reference.wordOrder === 'low-first' ? [...words].reverse() : [...words];
  const bytes = Buffer.alloc(ordered.length * 2);
  ordered.forEach((word, i) => bytes.writeUInt16BE(word, i * 2));
  let raw: number;
  if (reference.type === 'u16') raw = bytes.readUInt16BE(0);
  else if (reference.type === 's16') raw = bytes.readInt16BE(0);
  else if (reference.type === 'u32') raw = bytes.readUInt32BE(0);
  else raw = bytes.readInt32BE(0);
  if (mask !== undefined) raw = (raw & mask) >>> (31 - Math.clz32(mask & -mask));
  if (reference.labels) return reference.labels[raw] ?? `Unknown (${raw})`;
  // Scales such as 0.1 leave float noise (50.300000000000004), as the SDK's decoding rounds it away.
  return Math.round(raw * (reference.scale ?? 1) * (reference.opposite ? -1 : 1) * 1e6) / 1e6 || 0;
}

/** Labels compare without case, spaces or punctuation: documents write "Self-test", "SelfCheck", "Zero Export To CT". */
const plain = (label: string) => label.toLowerCase().replace(/[^a-z0-9]/g, '');

/** Whether the driver's `published` value is the document's `expected` one: half the reference's scale apart at most (rounding). */
export function agrees(reference: RegisterReference, expected: number | string, published: unknown): boolean {
  if (typeof expected === 'string') return typeof published === 'string' && plain(published) === plain(expected);
  return typeof published === 'number' && Math.abs(published - expected) <= Math.abs(reference.scale ?? 1) / 2 + 1e-9;
}

const registerCount = (type: RegisterReference['type']) => (type === 'u16' || type === 's16' ? 1 : 2);

/**
 * Coverage: the register entries counted are the map's distinct table/address pairs, internal
 * entries included (the driver reads them and derives published values from them, e.g. a grid
 * power from per-phase registers); text entries (type `string`, such as a serial number) are
 * left out, as a reference cannot describe text. A pair is covered when a reference names an
 * entry at that pair and gives the same address and table.
 */
export function coverage(map: RegisterMap): { addresses: number; uncovered: string[] } {
  const entries = map.registers.filter((entry) => entry.type !== 'string');
  const pairs = [...new Set(entries.map((entry) => where(entry.table, entry.address)))];
  const covered = new Set(
    map.references.flatMap((reference) => {
      const entry = entryOf(map, reference);
      return entry && entry.address === reference.address && (entry.table ?? 'holding') === reference.table
        ? [where(entry.table, entry.address)]
        : [];
    }),
  );
  const names = (pair: string) =>
    entries
      .filter((entry) => where(entry.table, entry.address) === pair)
      .map((entry) => key(entry.device, entry.name))
      .join(', ');
  return {
    addresses: pairs.length,
    uncovered: pairs.filter((pair) => !covered.has(pair)).map((pair) => `${pair}: ${names(pair)}`),
  };
}

function entryOf(map: RegisterMap, reference: RegisterReference): RegisterEntry | undefined {
  return map.registers.find((entry) => key(entry.device, entry.name) === key(reference.device, reference.name));
}

/**
 * Reads `map` with the driver's decoding, then each reference's registers directly, and
 * reports every disagreement. A reference whose registers all read 0 is listed in `zeros`: a
 * wrong address can read 0 too, so a 0 proves nothing on its own.
 */
export async function checkReferences(modbus: ModbusClient, unitId: number, map: RegisterMap): Promise<EvidenceReport> {
  const values = await readRegisterMap(modbus, unitId, map);
  const problems: string[] = [];
  const zeros: RegisterReference[] = [];
  if (map.references.length === 0) problems.push('the map has no references');
  for (const reference of map.references) {
    const name = key(reference.device, reference.name);
    const entry = entryOf(map, reference);
    if (!entry) {
      problems.push(`${name}: the map has no such entry`);
      continue;
    }
    const documented = where(reference.table, reference.address);
    if (entry.address !== reference.address || (entry.table ?? 'holding') !== reference.table)
      problems.push(`${name}: the map reads it at ${where(entry.table, entry.address)}, the document at ${documented}`);
    const device = reference.device ?? 'inverter';
    const published =
      reference.name in values[device] ? values[device][reference.name] : values.internal[device][reference.name];
    const request = { unitId, address: reference.address, count: registerCount(reference.type) };
    let words: number[];
    try {
      words =
        reference.table === 'input'
          ? await modbus.readInputRegisters(request)
          : await modbus.readHoldingRegisters(request);
    } catch (error) {
      problems.push(`${name}: the emulator refuses ${documented}: ${(error as Error).message}`);
      continue;
    }
    const expected = decodeReference(reference, words, entry.mask);
    const raw = entry.mask === undefined ? words : words.map((word) => word & entry.mask!);
    if (raw.every((word) => word === 0)) zeros.push(reference);
    if (!agrees(reference, expected, published)) {
      problems.push(
        `${name}: the document's ${documented} ${reference.type} reads ${JSON.stringify(expected)}, ` +
          `the driver publishes ${JSON.stringify(published)} (${reference.source})`,
      );
    }
  }
  return { problems, zeros };
}

/**
 * Writes a non-zero value into each writable entry `references` name, through the driver's
 * own setting (registerMapDeclarations: the map's encoding, the write, the read-back): a
 * setting whose emulated default is 0 then holds something a wrong address would not. Returns
 * the writes that failed.
 */
export async function writeNonZero(
  modbus: ModbusClient,
  unitId: number,
  map: RegisterMap,
  references: readonly RegisterReference[],
): Promise<string[]> {
  const failures: string[] = [];
  for (const reference of references) {
    const entry = entryOf(map, reference);
    if (!entry?.writable) continue;
    const device = entry.device ?? 'inverter';
    const setting = registerMapDeclarations(map, { device, modbus, unitId }).settings.find(
      (s) => s.name === entry.name,
    );
    if (!setting) continue;
    // An options setting takes the option's register value and its label, a range one the number.
    let args: { value: number; label?: string };
    if (entry.options) {
      const option = entry.options.find((o) => o.value !== 0);
      if (!option) continue;
      args = { value: option.value, label: option.label };
    } else if (entry.writable !== true) {
      const { min, max, step } = entry.writable;
      args = { value: min > 0 ? min : Math.min(step ?? 1, max) };
    } else continue;
    // registerMapDeclarations gives a range setting for `writable: {...}` and an options one for `options`.
    const handler = setting as unknown as { write(a: typeof args & { signal: AbortSignal }): Promise<void> };
    try {
      await handler.write({ ...args, signal: AbortSignal.timeout(5000) });
    } catch (error) {
      failures.push(
        `${key(device, entry.name)}: writing ${JSON.stringify(args.label ?? args.value)} through the driver failed: ${(error as Error).message}`,
      );
    }
  }
  return failures;
}
