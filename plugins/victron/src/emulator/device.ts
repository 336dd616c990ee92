/**
 * An emulated Victron GX with its units, built from the driver's register maps: one site
 * (PV on the AC output, on the grid side and DC-coupled, a three-phase load, a battery steered
 * by the ESS grid setpoint and minimum SOC, or by a Dynamic ESS schedule window) seen through
 * the system unit (100), a battery monitor and a VE.Bus inverter/charger, each a `ModbusDevice`
 * whose registers `registerMapImage` writes from the same maps the driver reads. The system
 * unit also answers the GX's clock (830, four registers of UTC seconds) and Dynamic ESS
 * (dess.ts), run by the site's own clock (the given one plus `clockOffsetMs`).
 */
import { registerMapImage, type RegisterMap } from '@heliograph/plugins-sdk/connections';
import {
  clamp,
  EmulatedSite,
  householdLoad,
  ModbusException,
  ModbusExceptionCode,
  sunFraction,
  type ModbusDevice,
} from '@heliograph/plugins-sdk/emulator';
import { batteryMap, identityMap, systemMap, vebusMap } from '../register-map.js';
import { DynamicEss } from './dess.js';

const MAX_BATTERY_W = 5000;
const CAPACITY_WH = 10_000;
const MODES = ['', 'Charger Only', 'Inverter Only', 'On', 'Off'] as const;

/** The site's flows at one moment, W (battery + charging, grid + import). */
interface Flows {
  pvDc: number;
  pvOut: number;
  pvGrid: number;
  load: number;
  battery: number;
  grid: number;
  /** Whether a Dynamic ESS window steers the battery. */
  scheduled: boolean;
}

/** The site behind the GX, and its writable settings in register units. */
export class VictronSite extends EmulatedSite {
  gridSetpointW = 50;
  minSocTenths = 200;
  switchMode = 3;
  /** /Settings/CGwacs/BatteryLife/State (10: Optimized without BatteryLife, above the minimum SOC). */
  essState = 10;
  /** /Settings/CGwacs/Hub4Mode (1: ESS with phase compensation; 3: external control). */
  hub4Mode = 1;
  readonly dess = new DynamicEss();
  private readonly clock: { offsetMs: number };
  /** The device's time of the last step, ms. */
  private stepped: number;
  private flowsNow: Flows;

  constructor(options: { now?: () => Date; soc?: number } = {}) {
    const base = options.now ?? (() => new Date());
    const clock = { offsetMs: 0 };
    super({ ...options, now: () => new Date(base().getTime() + clock.offsetMs) }, { soc: 60 });
    this.clock = clock;
    this.stepped = this.now().getTime();
    this.flowsNow = this.flows(this.stepped);
  }

  /** Moves the GX's clock on from the given one (ms), so a test can let a schedule window run out. */
  get clockOffsetMs(): number {
    return this.clock.offsetMs;
  }
  set clockOffsetMs(ms: number) {
    this.clock.offsetMs = ms;
  }

  /**
   * Moves the battery on to now: under the Dynamic ESS window that held at the last step until
   * it ended (when it did meanwhile), under the regular ESS after it.
   */
  step(): Flows {
    const hours = this.day.advance();
    const now = this.now().getTime();
    const from = this.stepped;
    this.stepped = now;
    if (hours > 0) {
      const endsAt = this.dess.windowEnd(from);
      const forced = endsAt !== null && endsAt < now && now > from ? clamp((endsAt - from) / (now - from), 0, 1) : 1;
      this.integrate(this.flows(from), hours * forced);
      if (forced < 1) this.integrate(this.flows(now), hours * (1 - forced));
    }
    this.flowsNow = this.flows(now);
    return this.flowsNow;
  }

  private integrate(flows: Flows, hours: number): void {
    this.soc = clamp(this.soc + (flows.battery * hours * 100) / CAPACITY_WH, 0, 100);
  }

  /** The flows at `atMs` on the GX's clock with the settings in force. */
  private flows(atMs: number): Flows {
    const time = new Date(atMs);
    const sun = sunFraction(time);
    const pvDc = Math.round(3000 * sun);
    const pvOut = Math.round(1500 * sun);
    const pvGrid = Math.round(700 * sun);
    const load = householdLoad(time);
    const surplus = pvDc + pvOut + pvGrid - load;
    const canCharge = this.soc < 100 ? MAX_BATTERY_W : 0;
    const canDischarge = this.soc * 10 > this.minSocTenths ? MAX_BATTERY_W : 0;
    const scheduled = this.dess.flow({ nowMs: atMs, soc: this.soc, surplusW: surplus, maxW: MAX_BATTERY_W });
    // ESS: the battery covers what keeps the grid at its setpoint, within its limits.
    let battery = scheduled.batteryW ?? surplus + this.gridSetpointW;
    battery = clamp(battery, -canDischarge, canCharge);
    if (this.switchMode === 4) battery = 0;
    battery = Math.round(battery) || 0;
    return {
      pvDc,
      pvOut,
      pvGrid,
      load,
      battery,
      grid: load + battery - pvDc - pvOut - pvGrid,
      scheduled: scheduled.batteryW !== null,
    };
  }

  /** Every map's values at the last step. */
  values() {
    const f = this.flowsNow;
    const volts = 51.2 + 0.02 * (this.soc - 50) + (f.battery > 0 ? 0.5 : f.battery < 0 ? -0.3 : 0);
    const split = (w: number, shares: readonly [number, number]) => {
      const l1 = Math.round(w * shares[0]);
      const l2 = Math.round(w * shares[1]);
      return [l1, l2, Math.round(w) - l1 - l2] as const;
    };
    const [pvOut1, pvOut2, pvOut3] = split(f.pvOut, [0.45, 0.33]);
    const [pvGrid1, pvGrid2, pvGrid3] = split(f.pvGrid, [0.5, 0.3]);
    const [load1, load2, load3] = split(f.load, [0.4, 0.33]);
    const [grid1, grid2, grid3] = split(f.grid, [0.37, 0.33]);
    const batteryValues = {
      power: f.battery,
      voltage: Math.round(volts * 100) / 100,
      current: Math.round((f.battery / volts) * 10) / 10,
      state_of_charge: Math.round(this.soc * 10) / 10,
      temperature: 19.5,
      cycles: 42,
      state_of_health: 98,
    };
    return {
      system: {
        inverter: {
          pv_out_l1: pvOut1,
          pv_out_l2: pvOut2,
          pv_out_l3: pvOut3,
          pv_grid_l1: pvGrid1,
          pv_grid_l2: pvGrid2,
          pv_grid_l3: pvGrid3,
          pv_dc: f.pvDc,
          load_l1: load1,
          load_l2: load2,
          load_l3: load3,
          grid_l1: grid1,
          grid_l2: grid2,
          grid_l3: grid3,
          battery_power: f.battery,
          grid_setpoint: this.gridSetpointW,
          min_soc: this.minSocTenths / 10,
          serial: 'HQ2207ABCDE',
        },
        battery: {
          ...batteryValues,
          voltage: Math.round(volts * 10) / 10,
          current: Math.round((f.battery / volts) * 10) / 10,
          state_of_charge: Math.round(this.soc),
        },
      },
      battery: { battery: batteryValues },
      vebus: {
        inverter: {
          grid_voltage: 231.2,
          output_power: Math.round((f.load - f.pvOut) / 10) * 10,
          device_mode: this.switchMode === 4 ? 'Off' : f.battery > 0 ? 'Bulk' : 'Inverting',
          switch_mode: MODES[this.switchMode]!,
        },
      },
    };
  }

  /**
   * The system unit's words beside its maps' (as the GX computes or stores them): the active
   * input (826: 1 grid), the battery state (844: 0 idle, 1 charging, 2 discharging), the clock
   * (830..833), the ESS state and mode (2900, 2902) and Dynamic ESS (5400..5430).
   */
  systemWords(): Map<number, number> {
    const f = this.flowsNow;
    const seconds = Math.floor(this.now().getTime() / 1000);
    const words = new Map<number, number>([
      [826, 1],
      [830, 0],
      [831, 0],
      [832, Math.floor(seconds / 0x10000) & 0xffff],
      [833, seconds & 0xffff],
      [844, f.battery > 0 ? 1 : f.battery < 0 ? 2 : 0],
      [2900, this.essState],
      [2902, this.hub4Mode],
    ]);
    for (const [address, word] of this.dess.words()) words.set(address, word);
    return words;
  }

  write(unit: 'system' | 'vebus', address: number, value: number): void {
    const signed = value >= 0x8000 ? value - 0x10000 : value;
    if (unit === 'system' && address === 2700 && Math.abs(signed) <= 32_000) this.gridSetpointW = signed;
    else if (unit === 'system' && address === 2901 && value <= 1000) this.minSocTenths = value;
    else if (unit === 'system' && DynamicEss.writable(address)) this.dess.write(address, value);
    else if (unit === 'vebus' && address === 33 && value >= 1 && value <= 4) this.switchMode = value;
    else throw new ModbusException({ code: ModbusExceptionCode.illegalDataAddress });
  }
}

/** One unit of the GX: the registers of `maps` (and the system's own words) from the site's values. */
function unitDevice(site: VictronSite, which: 'system' | 'battery' | 'vebus', maps: RegisterMap[]): ModbusDevice {
  const words = () => {
    site.step();
    const values = site.values()[which];
    const registers = new Map<number, number>();
    for (const map of maps)
      for (const [address, word] of registerMapImage(map, values).holding) registers.set(address, word);
    if (which === 'system') for (const [address, word] of site.systemWords()) registers.set(address, word);
    return registers;
  };
  return {
    readHoldingRegisters({ address, count }) {
      const registers = words();
      // A GX refuses addresses its service does not have.
      if (!registers.has(address)) throw new ModbusException({ code: ModbusExceptionCode.illegalDataAddress });
      return Array.from({ length: count }, (_, i) => registers.get(address + i) ?? 0);
    },
    writeRegisters({ address, values }) {
      if (which === 'battery') throw new ModbusException({ code: ModbusExceptionCode.illegalDataAddress });
      site.step();
      values.forEach((value, i) => site.write(which, address + i, value));
      site.step();
    },
  };
}

/** The GX's units: 100 the system, 225 the battery monitor, 227 the VE.Bus unit. */
export function victronUnits(site: VictronSite): Map<number, ModbusDevice> {
  return new Map([
    [100, unitDevice(site, 'system', [systemMap, identityMap])],
    [225, unitDevice(site, 'battery', [batteryMap])],
    [227, unitDevice(site, 'vebus', [vebusMap])],
  ]);
}
