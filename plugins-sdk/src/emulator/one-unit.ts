/*
 * What the Modbus inverter emulators repeat: a site whose battery and day counters move on
 * with a clock, registers answered from an image only within the blocks the device serves,
 * and one device started on one unit behind the transport the options pick.
 */
import { DayIntegrator } from './day.js';
import { ModbusException, ModbusExceptionCode, type ModbusDevice } from './modbus.js';
import { startModbusEmulator, type ModbusTransport } from './modbus-transports.js';
import { pickTransport, type EmulatorOptions, type RunningEmulator } from './server.js';

/**
 * An emulated site's clock, battery state of charge and today's counters; extend it with the
 * device's settings and the image of its registers.
 *
 * @example
 * class MyDevice extends EmulatedSite { constructor(options = {}) { super(options, { soc: 60 }); } }
 */
export class EmulatedSite {
  /** State of charge in %. */
  soc: number;
  protected readonly now: () => Date;
  protected readonly day: DayIntegrator;

  constructor(options: { now?: () => Date; soc?: number } = {}, defaults: { soc?: number } = {}) {
    this.now = options.now ?? (() => new Date());
    this.day = new DayIntegrator(this.now);
    this.soc = options.soc ?? defaults.soc ?? 50;
  }
}

/** Inclusive register ranges a device answers, e.g. `[[0, 124], [1000, 1124]]`. */
export type ReadableRanges = readonly (readonly [number, number])[];

/**
 * The `count` words from `address` out of the image `image()` builds, when the block lies
 * within one of `readable`; else the illegal data address exception (and no image is built).
 *
 * @example
 * readHoldingRegisters({ address, count }) { return imageWords(READABLE, address, count, () => this.image().holding); }
 */
export function imageWords(
  readable: ReadableRanges,
  address: number,
  count: number,
  image: () => ReadonlyMap<number, number>,
): number[] {
  if (!readable.some(([from, to]) => address >= from && address + count - 1 <= to))
    throw new ModbusException({ code: ModbusExceptionCode.illegalDataAddress });
  const words = image();
  return Array.from({ length: count }, (_, i) => words.get(address + i) ?? 0);
}

/**
 * Starts `device` on one unit (`options.unitId`, default 1) behind the transport the options
 * pick from `transports` (the first when none is given); a Solarman logger answers to
 * `options.loggerSerial`, else `defaultLoggerSerial`; `alsoOnUnits` are further unit ids the
 * same device answers on (a Huawei inverter's own port answers on 0). Returns the emulator
 * with `device`.
 *
 * @example
 * export const startEmulator = (options: EmulatorOptions = {}) =>
 *   startOneUnitEmulator(new MyDevice({ now: options.now }), options, transports);
 */
export async function startOneUnitEmulator<D extends ModbusDevice>(
  device: D,
  options: EmulatorOptions,
  transports: readonly ModbusTransport[],
  {
    defaultLoggerSerial,
    doubleCrc,
    alsoOnUnits = [],
  }: { defaultLoggerSerial?: number; doubleCrc?: boolean; alsoOnUnits?: readonly number[] } = {},
): Promise<RunningEmulator & { device: D }> {
  const loggerSerial = options.loggerSerial ?? defaultLoggerSerial;
  const running = await startModbusEmulator({
    transport: pickTransport(options.transport, transports),
    units: new Map([options.unitId ?? 1, ...alsoOnUnits].map((unit) => [unit, device])),
    ...(loggerSerial === undefined ? {} : { loggerSerial }),
    ...(doubleCrc === undefined ? {} : { doubleCrc }),
    host: options.host,
    port: options.port,
  });
  return Object.assign(running, { device });
}
