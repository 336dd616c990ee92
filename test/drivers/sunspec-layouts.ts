/*
 * SunSpec register layouts for the driver tests that the emulator does not serve by itself:
 * its device moved to another base address (0 or 50000) with chosen points blanked to their
 * "not implemented" markers, and a small float-model (111) device built from words.
 */
import { ModbusException, ModbusExceptionCode, textWords, type ModbusDevice } from '@heliograph/plugins-sdk/emulator';
import { SUNSPEC_BASE, type SunSpecDevice } from '@heliograph/plugin-sunspec/emulator';

const refused = () => new ModbusException({ code: ModbusExceptionCode.illegalDataAddress });

/** Where each model's data starts (registers after "SunS"'s base) and its words, by model ID. */
export function modelsOf(device: ModbusDevice, base = SUNSPEC_BASE): Map<number, { offset: number; data: number[] }> {
  const models = new Map<number, { offset: number; data: number[] }>();
  for (let at = base + 2; ;) {
    const [id, length] = device.readHoldingRegisters({ address: at, count: 2 }) as [number, number];
    if (id === 0xffff) return models;
    const data = device.readHoldingRegisters({ address: at + 2, count: length });
    models.set(id, { offset: at + 2 - base, data });
    at += 2 + length;
  }
}

/**
 * The emulated device's registers served from `base`, with `blank` points replaced (by model
 * ID and offset in its data: the words to show there). Anything below `base` is refused.
 */
export class RelocatedSunSpec implements ModbusDevice {
  private readonly patches = new Map<number, number>();
  /** Read requests answered so far. */
  reads = 0;

  constructor(
    readonly device: SunSpecDevice,
    readonly base: number,
    blank: Array<{ model: number; offset: number; words: number[] }> = [],
  ) {
    const models = modelsOf(device);
    for (const { model, offset, words } of blank) {
      const start = models.get(model)!.offset + offset;
      words.forEach((word, i) => this.patches.set(start + i, word));
    }
  }

  readHoldingRegisters({ address, count }: { address: number; count: number }): number[] {
    this.reads++;
    if (address < this.base) throw refused();
    const words = this.device.readHoldingRegisters({ address: address - this.base + SUNSPEC_BASE, count });
    return words.map((word, i) => this.patches.get(address - this.base + i) ?? word);
  }

  writeRegisters(): void {
    throw refused();
  }
}

/** A float32 as two registers, high word first. */
export function floatWords(value: number): [number, number] {
  const bytes = Buffer.alloc(4);
  bytes.writeFloatBE(value, 0);
  return [bytes.readUInt16BE(0), bytes.readUInt16BE(2)];
}

/**
 * A single-phase inverter speaking the float model 111 (no meter, no MPPT model, no battery)
 * at 40000: Mn `Fronius`, Md `Symo 5.0`, Vr `3.14.1`, SN `FR-42`; PhVphA 231.5 V, W 2500.5,
 * Hz 49.98, WH 1234567, DCW 2600, TmpCab not implemented (NaN), TmpSnk 41.5 °C, St 5
 * (throttled). Every other float reads NaN.
 */
export function floatInverter(): ModbusDevice {
  const nan = floatWords(Number.NaN);
  const model111 = Array.from({ length: 30 }, () => nan).flat();
  const set = (offset: number, value: number) => model111.splice(offset, 2, ...floatWords(value));
  set(14, 231.5);
  set(20, 2500.5);
  set(22, 49.98);
  set(30, 1234567);
  set(36, 2600);
  set(40, 41.5);
  model111.splice(46, 2, 5, 0xffff); // St, StVnd
  model111.splice(48, 12, ...Array<number>(12).fill(0)); // event bitfields
  const common = [
    ...textWords('Fronius', 16),
    ...textWords('Symo 5.0', 16),
    ...textWords('', 8),
    ...textWords('3.14.1', 8),
    ...textWords('FR-42', 16),
    1,
    0x8000,
  ];
  const image = [0x5375, 0x6e53, 1, common.length, ...common, 111, model111.length, ...model111, 0xffff, 0];
  return {
    readHoldingRegisters({ address, count }) {
      const from = address - SUNSPEC_BASE;
      if (from < 0 || from + count > image.length) throw refused();
      return image.slice(from, from + count);
    },
    writeRegisters() {
      throw refused();
    },
  };
}
