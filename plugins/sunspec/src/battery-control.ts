/*
 * Battery control on a SunSpec device through model 124 (basic storage controls), as
 * sunspec/models json/model_124.json places its points: StorCtl_Mod (data offset 3) turns on
 * the charge limit InWRte (11, bit 0) and the discharge limit OutWRte (10, bit 1), both in %
 * of WChaMax (0) scaled by InOutWRte_SF (23); a negative rate reverses the direction (forced
 * charging or discharging, as Fronius and SMA document it); ChaGriSet (15) allows charging
 * from the grid. The device knows no target SOC: the driver holds the battery once a charge
 * or discharge reaches its target. Limits come from the config, else from model 802.
 */
import {
  batteryControl,
  DeviceRefusedError,
  type batteryConfigSchema,
  type BatteryCommand,
  type BatteryControl,
  type BatteryLimits,
  type PluginStore,
  type z,
} from '@heliograph/plugins-sdk';
import { readModels, type ModelLocation, type ReadTarget } from './chain.js';
import type { ModelData } from './points.js';

/** An int16 as the register word. */
const toWord = (value: number) => value & 0xffff;

const P = {
  wChaMax: 0,
  storCtlMod: 3,
  minRsvPct: 5,
  outWRte: 10,
  chaGriSet: 15,
  wChaMaxSf: 16,
  minRsvSf: 19,
  rateSf: 23,
};

/**
 * The limits: the config's where given, else model 802's (WHRtg, WChaRteMax, WDisChaRteMax)
 * with model 124's MinRsvPct. Null when neither says how large the battery is.
 */
export function storageLimits(
  config: z.output<typeof batteryConfigSchema> | undefined,
  storage: ModelData,
  battery: ModelData | undefined,
): BatteryLimits | null {
  const modes = ['normal', 'hold', 'charge', 'discharge'] as const;
  if (config) return { ...config, modes };
  const wh = battery?.scaled(battery.u16(1), 51);
  if (!battery || !wh) return null;
  const wChaMax = storage.scaled(storage.u16(P.wChaMax), P.wChaMaxSf) ?? 0;
  return {
    capacityKwh: wh / 1000,
    maxChargeW: battery.scaled(battery.u16(2), 52) ?? wChaMax,
    maxDischargeW: battery.scaled(battery.u16(3), 52) ?? wChaMax,
    minSoc: storage.scaled(storage.u16(P.minRsvPct), P.minRsvSf) ?? 0,
    modes,
  };
}

/** What one command writes: StorCtl_Mod, and OutWRte, InWRte, the three timers, ChaGriSet (rates in %). */
export function storagePlan(
  command: BatteryCommand,
  wChaMaxW: number,
): { mode: number; out: number; in: number; grid: number } {
  const pct = Math.min(100, (command.powerW / Math.max(1, wChaMaxW)) * 100);
  switch (command.mode) {
    case 'normal':
      return { mode: 0, out: 100, in: 100, grid: 0 };
    case 'hold':
      return { mode: 2, out: 0, in: 100, grid: 0 };
    case 'charge':
      return { mode: 3, out: -pct, in: pct, grid: 1 };
    case 'discharge':
      return { mode: 3, out: pct, in: -pct, grid: 0 };
  }
}

export interface SunSpecBatteryControl {
  control: BatteryControl;
  /** After each poll: holds the battery once a charge or discharge reached its target. */
  afterPoll(args: { soc: number | null; signal: AbortSignal }): Promise<void>;
}

export function sunspecBatteryControl(args: {
  target: Omit<ReadTarget, 'signal'> & { timeoutMs: number };
  storage: ModelLocation;
  limits: BatteryLimits;
  log: (message: string) => void;
  /** Keeps the command in force across restarts, so a charge still ends at its target. */
  store: PluginStore;
  initial: BatteryCommand | undefined;
}): SunSpecBatteryControl {
  const { target, storage } = args;
  let reached = false;

  const write = async (command: BatteryCommand, signal: AbortSignal) => {
    const [data] = await readModels({ ...target, signal }, [storage]);
    const wChaMax = data!.scaled(data!.u16(P.wChaMax), P.wChaMaxSf);
    if (!wChaMax) throw new DeviceRefusedError({ answer: 'model 124 reports no WChaMax' });
    const sf = data!.sf(P.rateSf) ?? 0;
    const plan = storagePlan(command, wChaMax);
    const rate = (pct: number) => toWord(Math.round(pct / 10 ** sf));
    const hasGridSet = data!.u16(P.chaGriSet) !== null;
    const rates = [rate(plan.out), rate(plan.in), 0, 0, 0, ...(hasGridSet ? [plan.grid] : [])];
    const registers = [
      { address: storage.address + P.outWRte, values: rates },
      { address: storage.address + P.storCtlMod, values: [plan.mode] },
    ];
    const { modbus, unitId, timeoutMs } = target;
    for (const { address, values } of registers)
      await modbus.writeRegisters({ unitId, address, values, timeoutMs, signal });
    for (const { address, values } of registers) {
      const got = await modbus.readHoldingRegisters({ unitId, address, count: values.length, timeoutMs, signal });
      const at = values.findIndex((v, i) => got[i] !== v);
      if (at >= 0)
        throw new DeviceRefusedError({
          answer: `register ${address + at} reads ${got[at]} after writing ${values[at]}`,
        });
    }
  };

  const control = batteryControl({
    limits: args.limits,
    store: args.store,
    initial: args.initial,
    apply: async ({ command, signal }) => {
      reached = false;
      await write(command, signal);
    },
  });

  return {
    control,
    async afterPoll({ soc, signal }) {
      const command = control.current();
      if (reached || soc === null) return;
      const done =
        (command.mode === 'charge' && soc >= command.targetSoc) ||
        (command.mode === 'discharge' && soc <= command.targetSoc);
      if (!done) return;
      await write({ ...command, mode: 'hold' }, signal);
      reached = true;
      args.log(`battery at ${soc} %, the ${command.mode} target ${command.targetSoc} %: holding`);
    },
  };
}
