/**
 * An emulated Victron GX with its units, built from the driver's register maps: one site
 * (PV on the AC output and DC-coupled, a three-phase load, a battery steered by the ESS
 * grid setpoint and minimum SOC) seen through the system unit (100), a battery monitor and
 * a VE.Bus inverter/charger, each a `ModbusDevice` whose registers `registerMapImage`
 * writes from the same maps the driver reads.
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

const MAX_BATTERY_W = 5000;
const MODES = ['', 'Charger only', 'Inverter only', 'On', 'Off'] as const;

/** The site behind the GX, and its writable settings in register units. */
export class VictronSite extends EmulatedSite {
  gridSetpointW = 50;
  minSocTenths = 200;
  switchMode = 3;

  constructor(options: { now?: () => Date; soc?: number } = {}) {
    super(options, { soc: 60 });
  }

  /** Moves the battery on to now; returns every map's values. */
  values() {
    const time = this.now();
    const hours = this.day.advance();
    const pvDc = Math.round(3000 * sunFraction(time));
    const pvAc = Math.round(1500 * sunFraction(time));
    const load = householdLoad(time);
    const off = this.switchMode === 4;
    // ESS: the battery covers what keeps the grid at its setpoint, within its limits.
    let battery = clamp(pvDc + pvAc - load + this.gridSetpointW, -MAX_BATTERY_W, MAX_BATTERY_W); // + charging
    if (battery < 0 && this.soc * 10 <= this.minSocTenths) battery = 0;
    if (battery > 0 && this.soc >= 100) battery = 0;
    if (off) battery = 0;
    const grid = load + battery - pvDc - pvAc;
    this.soc = clamp(this.soc + (battery * hours * 100) / 10_000, 0, 100);
    const volts = 51.2 + 0.02 * (this.soc - 50) + (battery > 0 ? 0.5 : battery < 0 ? -0.3 : 0);
    const third = (w: number) => Math.round(w / 3);
    const batteryValues = {
      power: Math.round(battery),
      voltage: Math.round(volts * 100) / 100,
      current: Math.round((battery / volts) * 10) / 10,
      state_of_charge: Math.round(this.soc),
      temperature: 19.5,
      cycles: 42,
      state_of_health: 98,
    };
    return {
      system: {
        inverter: {
          pv_out_l1: pvAc,
          pv_out_l2: 0,
          pv_out_l3: 0,
          pv_grid_l1: 0,
          pv_grid_l2: 0,
          pv_grid_l3: 0,
          pv_dc: pvDc,
          load_l1: third(load),
          load_l2: third(load),
          load_l3: load - 2 * third(load),
          grid_l1: third(grid),
          grid_l2: third(grid),
          grid_l3: Math.round(grid) - 2 * third(grid),
          battery_power: Math.round(battery),
          grid_setpoint: this.gridSetpointW,
          min_soc: this.minSocTenths / 10,
          serial: 'HQ2207ABCDE',
        },
        battery: { ...batteryValues, voltage: Math.round(volts * 10) / 10 },
      },
      battery: { battery: batteryValues },
      vebus: {
        inverter: {
          grid_voltage: 231.2,
          output_power: Math.round(load / 10) * 10,
          device_mode: off ? 'Off' : battery > 0 ? 'Bulk' : 'Inverting',
          switch_mode: MODES[this.switchMode]!,
        },
      },
    };
  }

  write(unit: 'system' | 'vebus', address: number, value: number): void {
    const signed = value >= 0x8000 ? value - 0x10000 : value;
    if (unit === 'system' && address === 2700 && Math.abs(signed) <= 32_000) this.gridSetpointW = signed;
    else if (unit === 'system' && address === 2901 && value <= 1000) this.minSocTenths = value;
    else if (unit === 'vebus' && address === 33 && value >= 1 && value <= 4) this.switchMode = value;
    else throw new ModbusException({ code: ModbusExceptionCode.illegalDataAddress });
  }
}

/** One unit of the GX: the registers of `map` (plus `extra`) from the site's values. */
function unitDevice(site: VictronSite, which: 'system' | 'battery' | 'vebus', maps: RegisterMap[]): ModbusDevice {
  const words = () => {
    const values = site.values()[which];
    const registers = new Map<number, number>();
    for (const map of maps)
      for (const [address, word] of registerMapImage(map, values).holding) registers.set(address, word);
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
      values.forEach((value, i) => site.write(which, address + i, value));
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
