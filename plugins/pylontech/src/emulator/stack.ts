/**
 * An emulated stack of Pylontech packs (US2000-style: 15 LFP cells, 50 Ah) on one RS485 bus,
 * at addresses 2, 3, ... The stack charges from a PV surplus by day and feeds the house at
 * night; each pack's state of charge integrates its current.
 */
import { clamp, DayIntegrator, householdLoad, sunFraction } from '@heliograph/plugins-sdk/emulator';
import { infoHex, infoText, Rtn, type PylonFrame } from '../protocol.js';

const CELLS = 15;
const CAPACITY_MAH = 50_000;
const MAX_CURRENT_A = 25;
const PV_PEAK_W = 5000;
const MIN_SOC = 5;
/** Kelvin x10 of 0 °C, as the protocol counts temperatures. */
const ZERO_CELSIUS = 2731;

/**
 * CID2 47 (system parameters), as python-pylontech reads them after the INFOFLAG: cell
 * high / low / under voltage (mV), charge high / low temperature (K × 10), charge current
 * limit (0.01 A), module high / low / under voltage (mV), discharge high / low temperature,
 * discharge current limit.
 */
const SYSTEM_PARAMETERS =
  infoHex([0x11], 1) +
  infoHex([3650, 3000, 2700, ZERO_CELSIUS + 500, ZERO_CELSIUS, 2500, 54_000, 46_500, 45_000]) +
  infoHex([ZERO_CELSIUS + 600, ZERO_CELSIUS - 100, -2500]);

export interface Pack {
  address: number;
  /** %, fractional. */
  soc: number;
  cycles: number;
  /** A, + charging. */
  current: number;
  /** The module SN (CID2 0x93), 16 ASCII characters; undefined: firmware without 0x93 (return code 04). */
  serial?: string;
}

export class PylontechStack {
  readonly packs: Pack[];
  private readonly now: () => Date;
  private readonly day: DayIntegrator;

  constructor(options: { packs?: number; now?: () => Date } = {}) {
    this.now = options.now ?? (() => new Date());
    this.day = new DayIntegrator(this.now);
    this.packs = Array.from({ length: options.packs ?? 2 }, (_, i) => ({
      address: 2 + i,
      soc: 55 + 10 * i,
      cycles: 120 + 7 * i,
      current: 0,
      serial: `PPTAH0240012${String(3456 + i)}`,
    }));
  }

  /**
   * The reply to one request frame, or `undefined` when no pack has its address (nobody on
   * the bus answers).
   */
  answer(request: PylonFrame): PylonFrame | undefined {
    const pack = this.packs.find((p) => p.address === request.adr);
    if (!pack) return undefined;
    this.step();
    const reply = (rtn: number, info = ''): PylonFrame => ({
      ver: 0x20,
      adr: pack.address,
      cid1: 0x46,
      cid2: rtn,
      info,
    });
    if (request.ver !== 0x20) return reply(Rtn.badVersion);
    if (request.cid1 !== 0x46) return reply(Rtn.badCid2);
    switch (request.cid2) {
      case 0x4f:
        return reply(Rtn.ok);
      case 0x51:
        return reply(Rtn.ok, infoText('US2000C', 10) + infoHex([1, 2], 1) + infoText('PYLON', 20));
      case 0x42:
      case 0x44: {
        if (request.info.length !== 2) return reply(Rtn.badFormat);
        const asked = parseInt(request.info, 16);
        if (asked !== pack.address && asked !== 0xff) return reply(Rtn.badData);
        // The whole stack (FF): the flag, the number of packs, then each pack without its address.
        if (asked === 0xff && request.cid2 === 0x42)
          return reply(
            Rtn.ok,
            infoHex([0x11, this.packs.length], 1) + this.packs.map((p) => this.analog(p).slice(4)).join(''),
          );
        return reply(Rtn.ok, request.cid2 === 0x42 ? this.analog(pack) : this.alarms(pack));
      }
      case 0x47:
        return reply(Rtn.ok, SYSTEM_PARAMETERS);
      case 0x92:
        return reply(Rtn.ok, infoHex([pack.address], 1) + infoHex([53_200, 45_000, 250, -250]) + infoHex([0xc0], 1));
      case 0x93: {
        if (pack.serial === undefined) return reply(Rtn.badCid2);
        // Protocol V3.3 section 3.7: INFO is the 1-byte command value, matched with ADR; the
        // reply is that value and the module SN, 16 ASCII bytes.
        if (request.info.length !== 2) return reply(Rtn.badFormat);
        if (parseInt(request.info, 16) !== pack.address) return reply(Rtn.badData);
        return reply(Rtn.ok, infoHex([pack.address], 1) + infoText(pack.serial, 16));
      }
      default:
        return reply(Rtn.badCid2);
    }
  }

  /** Moves every pack's charge on to now. */
  private step(): void {
    const time = this.now();
    const hours = this.day.advance();
    const surplusW = PV_PEAK_W * sunFraction(time) - householdLoad(time);
    for (const pack of this.packs) {
      const voltage = (cellMillivolts(pack.soc, 0) * CELLS) / 1000;
      let current = clamp(surplusW / this.packs.length / voltage, -MAX_CURRENT_A, MAX_CURRENT_A);
      if ((current > 0 && pack.soc >= 100) || (current < 0 && pack.soc <= MIN_SOC)) current = 0;
      pack.current = Math.round(current * 10) / 10;
      const before = pack.soc;
      pack.soc = clamp(pack.soc + (pack.current * hours * 1000 * 100) / CAPACITY_MAH, 0, 100);
      // Run down to its floor, a pack counts one more cycle.
      if (before > MIN_SOC && pack.soc <= MIN_SOC) pack.cycles++;
    }
  }

  private analog(pack: Pack): string {
    const cells = Array.from({ length: CELLS }, (_, i) => cellMillivolts(pack.soc, pack.current) + ((i * 7) % 11) - 5);
    const celsius = [24, 23, 23.5, 24.2, 23.8].map((t) => t + Math.abs(pack.current) / 10);
    const remaining = Math.round((CAPACITY_MAH * pack.soc) / 100);
    return (
      infoHex([0x11, pack.address, CELLS], 1) +
      infoHex(cells) +
      infoHex([celsius.length], 1) +
      infoHex(celsius.map((c) => ZERO_CELSIUS + c * 10)) +
      infoHex([pack.current * 10, cells.reduce((a, b) => a + b, 0), remaining]) +
      infoHex([2], 1) +
      infoHex([CAPACITY_MAH, pack.cycles])
    );
  }

  private alarms(pack: Pack): string {
    const normal = (count: number) => infoHex(Array<number>(count).fill(0), 1);
    return infoHex([0x11, pack.address, CELLS], 1) + normal(CELLS) + infoHex([5], 1) + normal(5) + normal(3 + 5);
  }
}

/** A cell's voltage in mV at a state of charge, a little higher while charging. */
function cellMillivolts(soc: number, current: number): number {
  return Math.round(3150 + 2.5 * soc + 4 * current);
}
