/**
 * What a pack's replies mean: CID2 0x42 (analog values) as battery vocabulary metrics, and
 * CID2 0x51 (manufacturer info) and 0x93 (module serial number) as the pack's identity.
 */
import type { DeviceIdentity, MetricDeclaration, MetricValue } from '@heliograph/plugins-sdk';

/** Reads INFO hex from the front: unsigned or signed big-endian numbers, ASCII text. */
class InfoReader {
  private at = 0;
  constructor(private readonly hex: string) {}

  get left(): number {
    return (this.hex.length - this.at) / 2;
  }

  unsigned(bytes: number): number {
    if (this.left < bytes) throw new Error(`INFO ends early: ${bytes} more bytes expected at byte ${this.at / 2}`);
    const value = parseInt(this.hex.slice(this.at, this.at + 2 * bytes), 16);
    this.at += 2 * bytes;
    return value;
  }

  signed(bytes: number): number {
    const value = this.unsigned(bytes);
    const half = 2 ** (8 * bytes - 1);
    return value >= half ? value - 2 * half : value;
  }

  text(bytes: number): string {
    const chars = Array.from({ length: bytes }, () => this.unsigned(1));
    return String.fromCharCode(...chars.filter((c) => c !== 0)).trim();
  }
}

/** Kelvin x10 of 0 °C, as the protocol counts temperatures. */
const ZERO_CELSIUS = 2731;

const celsius = (displayName: string): MetricDeclaration => ({
  name: '',
  displayName,
  unit: '°C',
  deviceClass: 'temperature',
  stateClass: 'measurement',
});

/** A pack's temperatures beyond the vocabulary's `temperature` (the cells' mean). */
export const packTemperatureMetrics: MetricDeclaration[] = [
  { ...celsius('Lowest cell temperature'), name: 'cell_temperature_min' },
  { ...celsius('Highest cell temperature'), name: 'cell_temperature_max' },
  { ...celsius('BMS temperature'), name: 'bms_temperature' },
];
const round = (value: number, decimals: number) => Math.round(value * 10 ** decimals) / 10 ** decimals;

/**
 * The analog values (CID2 0x42 reply INFO) as battery metrics: `current` and `power`
 * positive while charging, `temperature` the cells' mean (min and max apart), the BMS
 * board's own as `bms_temperature`, capacities in Ah, `state_of_charge` from remaining over full.
 * Packs above 65 Ah send their capacities again as 3-byte numbers (user-defined count 4).
 *
 * @example
 * analogValues(info).state_of_charge; // 55
 */
export function analogValues(info: string): Record<string, MetricValue> {
  const r = new InfoReader(info);
  r.unsigned(1); // INFOFLAG
  r.unsigned(1); // the pack's address
  const cells = Array.from({ length: r.unsigned(1) }, () => r.unsigned(2) / 1000);
  // The first temperature is the BMS board's, the others the cell groups' (python-pylontech:
  // AverageBMSTemperature, then GroupedCellsTemperatures).
  const [board, ...temps] = Array.from({ length: r.unsigned(1) }, () => (r.signed(2) - ZERO_CELSIUS) / 10);
  const current = r.signed(2) / 10;
  const voltage = r.unsigned(2) / 1000;
  let remainingMah = r.unsigned(2);
  const userDefined = r.unsigned(1);
  let fullMah = r.unsigned(2);
  const cycles = r.unsigned(2);
  if (userDefined >= 4 && r.left >= 6) {
    remainingMah = r.unsigned(3);
    fullMah = r.unsigned(3);
  }
  return {
    voltage: round(voltage, 3),
    current,
    power: Math.round(voltage * current),
    state_of_charge: fullMah > 0 ? round((100 * remainingMah) / fullMah, 1) : null,
    temperature: temps.length > 0 ? round(temps.reduce((a, b) => a + b, 0) / temps.length, 1) : null,
    cell_temperature_min: temps.length > 0 ? Math.min(...temps) : null,
    cell_temperature_max: temps.length > 0 ? Math.max(...temps) : null,
    bms_temperature: board ?? null,
    cycles,
    cell_voltage_min: cells.length > 0 ? Math.min(...cells) : null,
    cell_voltage_max: cells.length > 0 ? Math.max(...cells) : null,
    remaining_capacity: round(remainingMah / 1000, 3),
    full_capacity: round(fullMah / 1000, 3),
  };
}

/**
 * The manufacturer info (CID2 0x51 reply INFO): device name (10 bytes), software version
 * (2 bytes), manufacturer (20 bytes).
 *
 * @example
 * manufacturerInfo(info); // { manufacturer: 'PYLON', model: 'US2000C', firmware: '1.2' }
 */
export function manufacturerInfo(info: string): DeviceIdentity {
  const r = new InfoReader(info);
  const model = r.text(10);
  const firmware = `${r.unsigned(1)}.${r.unsigned(1)}`;
  const manufacturer = r.text(20);
  return { manufacturer, model, firmware };
}

/**
 * The module serial number (CID2 0x93 reply INFO, Pylontech RS485 protocol V3.3 (2018-08-21)
 * section 3.7 "get module SN number": the command value, 1 byte, then the SN, 16 ASCII bytes;
 * python-pylontech `module_serial_number_fmt`), or undefined when it is blank.
 *
 * @example
 * moduleSerial('02' + Buffer.from('PPTAH02400123456').toString('hex')); // 'PPTAH02400123456'
 */
export function moduleSerial(info: string): string | undefined {
  const r = new InfoReader(info);
  r.unsigned(1);
  return r.text(16) || undefined;
}
