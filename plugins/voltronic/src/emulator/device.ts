/**
 * An emulated Voltronic / Axpert off-grid inverter (PI30): PV from the sun, a household
 * load, a 48 V battery and the utility, steered by output source priority, charger priority
 * and the max charging current the way the real device is. Answers the PI30 commands as
 * text: `answer('QPIGS')` gives `(230.0 50.0 ...`. Like the real device it has no timer:
 * whatever priorities it is given stay until it is given others. The charger priorities'
 * numbers are the model's (`model`), as the PI30 documents in jblance/mpp-solar's
 * docs/protocols and its pi30.py / pi30m045.py give them.
 */
import { clamp, DayIntegrator, householdLoad, sunFraction } from '@heliograph/plugins-sdk/emulator';

/**
 * Queries whose replies do not move with the site, in mpp-solar's PI30 formats: the protocol
 * id, the enabled (E) and disabled (D) flags, the 32 warning bits (none set) and the default
 * settings (mpp-solar's example reply).
 */
const FIXED_REPLIES: Record<string, string> = {
  QPI: '(PI30',
  QFLAG: '(EakxyDbjuvz',
  QPIWS: `(${'0'.repeat(32)}`,
  QDI: '(230.0 50.0 0030 42.0 54.0 56.4 46.0 60 0 0 2 0 0 0 0 0 1 1 0 0 1 0 54.0 0 1 000',
};

/** The max charging currents the device accepts (QMCHGCR, mpp-solar pi30.py's example reply), A. */
export const CHARGE_CURRENTS = [10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120];
/** The max utility (AC) charging currents the device accepts (QMUCHGCR), A. */
export const UTILITY_CHARGE_CURRENTS = [2, 10, 20, 30, 40, 50, 60];
const PV_PEAK_W = 4000;
/** In SBU priority the battery feeds the load down to this SOC, then the utility takes over. */
const SBU_MIN_SOC = 20;
const CAPACITY_WH = 200 * 51.2;

/** What a charger priority does: whether the utility may charge the battery. */
type ChargerMeaning = 'utility first' | 'solar first' | 'solar and utility' | 'only solar';

/**
 * The forms of the max charging current command a model takes (the text after the command):
 * `mnn` a parallel unit digit and the current, `nnn` / `mnnn` likewise with three digits.
 */
type ChargeCurrentForm = 'MCHGC<mnn>' | 'MCHGC<nnn>' | 'MNCHGC<mnnn>' | 'MNCHGC<nnn>';

/**
 * The models the emulator can be, as the PI30 documents in jblance/mpp-solar's docs/protocols
 * give them:
 * - `HS` (PI30_HS_MS_MSX_RS232_Protocol_20140822: PCP00..03; 3.15 `MCHGC<mnn>`, m the
 *   parallel unit, and 3.19 `MNCHGC<mnnn>` for more than 100 A);
 * - `MKS` (PI30_Communication-Protocol-20150924: "For MKS: 00 for utility first, 01 for solar
 *   first, 03 for only solar charging", no PCP02; 3.3 `MCHGC<nnn>`, 3.4 `MNCHGC<mnnn>`);
 * - `MK` (PI30_PIP-GK_MK-Protocol: PCP "01 for solar first, 02 for solar and utility, 03 for
 *   only solar charging", no PCP00; QGMN 023 "PIP-5048MK"; 3.3 `MNCHGC<nnn>` only);
 * - `LV6548` (QGMN 045; PCP00 solar first, 01 solar and utility, 02 only solar, and
 *   `MUCHGC<uaaa>`: mpp-solar's pi30m045.py; `MNCHGC<mnnn>` only, as the MAX protocol 3.5
 *   that pi30m045.py builds on).
 */
export type Pi30Model = 'HS' | 'MKS' | 'MK' | 'LV6548';

const MODELS: Record<
  Pi30Model,
  { gmn?: string; charger: ReadonlyArray<ChargerMeaning | undefined>; chargeCurrent: readonly ChargeCurrentForm[] }
> = {
  HS: {
    charger: ['utility first', 'solar first', 'solar and utility', 'only solar'],
    chargeCurrent: ['MCHGC<mnn>', 'MNCHGC<mnnn>'],
  },
  MKS: {
    charger: ['utility first', 'solar first', undefined, 'only solar'],
    chargeCurrent: ['MCHGC<nnn>', 'MNCHGC<mnnn>'],
  },
  MK: {
    gmn: '023',
    charger: [undefined, 'solar first', 'solar and utility', 'only solar'],
    chargeCurrent: ['MNCHGC<nnn>'],
  },
  LV6548: { gmn: '045', charger: ['solar first', 'solar and utility', 'only solar'], chargeCurrent: ['MNCHGC<mnnn>'] },
};

interface Flows {
  pv: number;
  load: number;
  grid: number;
  charge: number;
  discharge: number;
  /** Part of `charge` that came from the utility. */
  acCharge: number;
}

export class VoltronicDevice {
  /** QPIRI 16: 0 utility first, 1 solar first, 2 SBU. */
  outputPriority = 2;
  /** QPIRI 17, the model's number (HS: 0 utility first, 1 solar first, 2 solar + utility, 3 only solar). */
  chargerPriority: number;
  maxChargeA = 60;
  /** QPIRI 13, set by MUCHGC: the utility's share of charging, A. */
  maxUtilityChargeA = 30;
  soc: number;
  readonly serial: string;
  readonly model: Pi30Model;
  /**
   * Every setting command the device took (`(ACK`), oldest first: what a real one writes to
   * its EEPROM.
   */
  readonly writes: string[] = [];
  private readonly now: () => Date;
  private readonly day: DayIntegrator;

  constructor(options: { now?: () => Date; soc?: number; serial?: string; model?: Pi30Model } = {}) {
    this.now = options.now ?? (() => new Date());
    this.day = new DayIntegrator(this.now);
    this.soc = options.soc ?? 60;
    this.serial = options.serial ?? '92931701100435';
    this.model = options.model ?? 'HS';
    this.chargerPriority = MODELS[this.model].charger.indexOf('only solar');
  }

  /** What the charger priority in force does. */
  get charger(): ChargerMeaning | undefined {
    return MODELS[this.model].charger[this.chargerPriority];
  }

  /** The reply text (starting with `(`) to one command, `(NAK` for what the device refuses. */
  answer(command: string): string {
    const flows = this.step();
    if (command === 'QPIGS') return this.qpigs(flows);
    if (command === 'QMOD') return flows.grid > 0 ? '(L' : '(B';
    if (command === 'QPIRI') return this.qpiri();
    if (command === 'QID') return `(${this.serial}`;
    if (command === 'QVFW') return '(VERFW:00072.70';
    if (command === 'QMCHGCR') return `(${CHARGE_CURRENTS.map((a) => pad(a, 3)).join(' ')}`;
    if (command === 'QMUCHGCR') return `(${UTILITY_CHARGE_CURRENTS.map((a) => pad(a, 3)).join(' ')}`;
    const gmn = MODELS[this.model].gmn;
    if (command === 'QGMN') return gmn ? `(${gmn}` : '(NAK';
    const fixed = FIXED_REPLIES[command];
    if (fixed !== undefined) return fixed;
    if (!this.set(command)) return '(NAK';
    this.writes.push(command);
    return '(ACK';
  }

  private set(command: string): boolean {
    const match = /^(POP|PCP|MCHGC|MNCHGC|MUCHGC)(\d{2,4})$/.exec(command);
    if (!match) return false;
    const [, name, digits] = match as unknown as [string, string, string];
    const value = Number(digits);
    if (name === 'POP' && digits.length === 2 && value <= 2) this.outputPriority = value;
    else if (name === 'PCP' && digits.length === 2 && MODELS[this.model].charger[value] !== undefined)
      this.chargerPriority = value;
    else if (name === 'MCHGC' || name === 'MNCHGC') {
      const amps = this.chargeCurrent(name, digits);
      if (amps === undefined || !CHARGE_CURRENTS.includes(amps)) return false;
      this.maxChargeA = amps;
    } else if (name === 'MUCHGC' && digits.length === (this.model === 'LV6548' ? 4 : 3) && digits.startsWith('0')) {
      // Unit 0 (`mnn`, or `uaaa` on the LV6548), a current QMUCHGCR lists.
      const amps = Number(digits.slice(1));
      if (!UTILITY_CHARGE_CURRENTS.includes(amps)) return false;
      this.maxUtilityChargeA = amps;
    } else return false;
    return true;
  }

  /**
   * The current a max charging current command sets on this unit (unit 0) in a form the
   * model takes, or undefined: another form, or another parallel unit (`MCHGC110` on an HS
   * is unit 1 at 10 A, which this single unit is not).
   */
  private chargeCurrent(name: string, digits: string): number | undefined {
    for (const form of MODELS[this.model].chargeCurrent) {
      const [formName, field] = form.slice(0, -1).split('<') as [string, string];
      if (formName !== name || field.length !== digits.length) continue;
      if (!field.startsWith('m')) return Number(digits);
      return digits.startsWith('0') ? Number(digits.slice(1)) : undefined;
    }
    return undefined;
  }

  private batteryVoltage(): number {
    return 48 + 0.08 * this.soc;
  }

  private step(): Flows {
    const time = this.now();
    const hours = this.day.advance();
    const flows = this.flows(time);
    this.soc = clamp(this.soc + ((flows.charge - flows.discharge) * hours * 100) / CAPACITY_WH, 0, 100);
    return flows;
  }

  private flows(time: Date): Flows {
    const voltage = this.batteryVoltage();
    const maxCharge = this.soc >= 100 ? 0 : this.maxChargeA * voltage;
    const sunW = PV_PEAK_W * sunFraction(time);
    const load = householdLoad(time);
    // Off-grid: PV never flows to the utility, so only what load and battery take is produced.
    const pvToLoad = this.outputPriority === 0 ? 0 : Math.min(sunW, load);
    let charge = Math.min(sunW - pvToLoad, maxCharge);
    const pv = pvToLoad + charge;
    let grid = load - pvToLoad;
    let discharge = 0;
    if (this.outputPriority === 2 && this.soc > SBU_MIN_SOC) {
      discharge = grid;
      grid = 0;
    }
    let acCharge = 0;
    if ((this.charger === 'utility first' || this.charger === 'solar and utility') && charge < maxCharge) {
      acCharge = Math.min(this.maxUtilityChargeA * voltage, maxCharge) - charge;
      if (acCharge > 0) {
        charge += acCharge;
        grid += acCharge;
      } else acCharge = 0;
    }
    if (discharge > 0 && charge > 0) [charge, discharge] = [Math.max(charge - discharge, 0), 0];
    return { pv, load, grid, charge, discharge, acCharge };
  }

  private qpigs(flows: Flows): string {
    const voltage = this.batteryVoltage() + (flows.charge > 0 ? 0.6 : flows.discharge > 0 ? -0.4 : 0);
    const pvVolts = flows.pv > 0 ? 250 + 30 * sunFraction(this.now()) : 0;
    const status = [
      '0',
      '0',
      '0',
      flows.load > 0 ? '1' : '0',
      '0',
      flows.charge > 0 ? '1' : '0',
      flows.charge - flows.acCharge > 0 ? '1' : '0',
      flows.acCharge > 0 ? '1' : '0',
    ].join('');
    const fields = [
      fixed(230, 5, 1),
      fixed(50, 4, 1),
      fixed(230, 5, 1),
      fixed(50, 4, 1),
      pad(flows.load / 0.9, 4),
      pad(flows.load, 4),
      pad((flows.load / 4000) * 100, 3),
      pad(380, 3),
      fixed(voltage, 5, 2),
      pad(flows.charge / voltage, 3),
      pad(this.soc, 3),
      pad(25 + 20 * (flows.pv / PV_PEAK_W), 4),
      pad(pvVolts > 0 ? flows.pv / pvVolts : 0, 4),
      fixed(pvVolts, 5, 1),
      fixed(flows.pv > 0 ? voltage : 0, 5, 2),
      pad(flows.discharge / voltage, 5),
      status,
      '00',
      '00',
      pad(flows.pv, 5),
      '010',
    ];
    return `(${fields.join(' ')}`;
  }

  private qpiri(): string {
    const fields = [
      '230.0 21.7 230.0 50.0 21.7 5000 4000 48.0 46.0 42.0 56.4 54.0 2',
      pad(this.maxUtilityChargeA, 3),
      pad(this.maxChargeA, 3),
      '0',
      String(this.outputPriority),
      String(this.chargerPriority),
      '9 01 0 0 54.0 0 1',
    ];
    return `(${fields.join(' ')}`;
  }
}

/** A whole number, zero-padded to `width` digits. */
function pad(value: number, width: number): string {
  return String(Math.max(0, Math.round(value))).padStart(width, '0');
}

/** A number with `decimals`, zero-padded to `width` characters. */
function fixed(value: number, width: number, decimals: number): string {
  return value.toFixed(decimals).padStart(width, '0');
}
