/*
 * Battery control on a SunSpec device through model 124 (basic storage controls), as
 * sunspec/models json/model_124.json (and smdx/smdx_00124.xml) places its points by data
 * offset: StorCtl_Mod (3, bitfield16) turns on the charge limit InWRte (11, bit 0 CHARGE) and
 * the discharge limit OutWRte (10, bit 1 DiSCHARGE), both in % of WChaMax (0) scaled by
 * InOutWRte_SF (23); a negative rate reverses the direction (forced charging or discharging,
 * as Fronius and SMA document it); ChaGriSet (15) allows charging from the grid.
 *
 * The lease on the device is InOutWRte_RvrtTms (13, s), "Timeout period for charge/discharge
 * rate": every forced command writes the seconds left until its lease ends (at most 1800),
 * after which the device puts the rates back to their defaults by itself; a later write of it
 * restarts the countdown (the planner's renewal), and besides it only the points that change
 * are written. Normal clears the controls (StorCtl_Mod 0, rates 100 %, no timeout). The
 * device knows no target SOC: the driver holds the battery once a charge or discharge
 * reaches its target. Limits come from the config, else from model 802.
 */
import {
  BATTERY_LEASE_MS,
  DeviceRefusedError,
  polledBatteryControl,
  type BatteryCommand,
  type BatteryConfig,
  type BatteryLimits,
  type BatteryMode,
  type PolledBatteryControl,
} from '@heliograph/plugins-sdk';
import { contextOf, type ControlContext } from '@heliograph/plugins-sdk/connections';
import { readModels, type ModelLocation, type ReadTarget } from './chain.js';
import type { ModelData } from './points.js';

/** An int16 as the register word. */
const toWord = (value: number) => value & 0xffff;

/** Data offsets of model 124's points (json/model_124.json, counted after ID and L). */
const P = {
  wChaMax: 0,
  storCtlMod: 3,
  minRsvPct: 5,
  outWRte: 10,
  inWRte: 11,
  winTms: 12,
  rvrtTms: 13,
  rmpTms: 14,
  chaGriSet: 15,
  wChaMaxSf: 16,
  minRsvSf: 19,
  rateSf: 23,
};
const NAMES: Record<number, string> = {
  [P.storCtlMod]: 'StorCtl_Mod',
  [P.outWRte]: 'OutWRte',
  [P.inWRte]: 'InWRte',
  [P.winTms]: 'InOutWRte_WinTms',
  [P.rvrtTms]: 'InOutWRte_RvrtTms',
  [P.rmpTms]: 'InOutWRte_RmpTms',
  [P.chaGriSet]: 'ChaGriSet',
};

/** The longest revert timeout written, s: the SDK's lease. */
export const MAX_REVERT_S = BATTERY_LEASE_MS / 1000;

/**
 * The limits: the config's where given, else model 802's (WHRtg, WChaRteMax, WDisChaRteMax)
 * with model 124's MinRsvPct. Null when neither says how large the battery is.
 */
export function storageLimits(
  config: BatteryConfig | undefined,
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

/** What one command sets: StorCtl_Mod, OutWRte and InWRte in %, ChaGriSet. */
export interface StoragePlan {
  mode: number;
  out: number;
  in: number;
  grid: number;
}

/** Each mode as model 124's points, the power in % of WChaMax. */
export function storagePlan(command: BatteryCommand, wChaMaxW: number): StoragePlan {
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

/**
 * InOutWRte_RvrtTms for a lease ending at `until`: the seconds left to the nearest one (the
 * device starts counting when the write reaches it anyway), 1..1800; never 0, which would
 * mean no end.
 */
export function revertSeconds(until: number, now: number): number {
  return Math.min(MAX_REVERT_S, Math.max(1, Math.round((until - now) / 1000)));
}

/**
 * The words a plan puts into model 124, by data offset: StorCtl_Mod and the rates, and the
 * timers and ChaGriSet where the device implements them (the window and the ramp 0, the
 * revert timeout `revertS`, 0 for normal).
 */
export function storageWords(data: ModelData, plan: StoragePlan, revertS: number): Map<number, number> {
  const sf = data.sf(P.rateSf) ?? 0;
  const rate = (pct: number) => toWord(Math.round(pct / 10 ** sf));
  const words = new Map([
    [P.storCtlMod, plan.mode],
    [P.outWRte, rate(plan.out)],
    [P.inWRte, rate(plan.in)],
  ]);
  const optional: Array<[number, number]> = [
    [P.winTms, 0],
    [P.rvrtTms, revertS],
    [P.rmpTms, 0],
    [P.chaGriSet, plan.grid],
  ];
  for (const [offset, word] of optional) if (data.u16(offset) !== null) words.set(offset, word);
  return words;
}

/** One write request: the data offset in model 124 and the words from there. */
export interface StorageWrite {
  offset: number;
  values: number[];
}

/**
 * The requests that take model 124 from `data` to `words`: only the points that differ, plus
 * InOutWRte_RvrtTms whenever the plan is forced (writing it restarts the device's countdown:
 * the renewal), in runs of neighbouring points. A forced plan writes its rates and timeout
 * before StorCtl_Mod turns them on; normal turns StorCtl_Mod off first.
 *
 * @example
 * storageWrites(data, words); // a renewal of an unchanged Charge: [{ offset: 13, values: [1800] }]
 */
export function storageWrites(data: ModelData, words: ReadonlyMap<number, number>): StorageWrite[] {
  const forced = words.get(P.storCtlMod) !== 0;
  const changed = [...words]
    .filter(([offset, word]) => data.words[offset] !== word || (forced && offset === P.rvrtTms))
    .sort(([a], [b]) => a - b);
  const runs: StorageWrite[] = [];
  for (const [offset, word] of changed) {
    const last = runs.at(-1);
    if (last && last.offset + last.values.length === offset) last.values.push(word);
    else runs.push({ offset, values: [word] });
  }
  const at = runs.findIndex((run) => run.offset === P.storCtlMod);
  if (at < 0) return runs;
  const [mode] = runs.splice(at, 1);
  return forced ? [...runs, mode!] : [mode!, ...runs];
}

/**
 * The first point of `words` that model 124 does not read back (`data`, read after the
 * writes), or null. A revert timeout counting down in place (0 < read <= written) holds.
 */
export function storageMismatch(data: ModelData, words: ReadonlyMap<number, number>, address: number): string | null {
  for (const [offset, word] of words) {
    const got = data.words[offset];
    const counting = offset === P.rvrtTms && word > 0 && got !== undefined && got > 0 && got <= word;
    if (got !== word && !counting)
      return `${NAMES[offset] ?? `point ${offset}`} (register ${address + offset}) reads ${got} after writing ${word}`;
  }
  return null;
}

/**
 * What model 124 makes the battery do: `normal` without limits (StorCtl_Mod 0); `charge` for
 * a reversed discharge limit (OutWRte < 0) from the grid, `hold` for one from PV only or a
 * discharge limit of 0; `discharge` for a reversed charge limit (InWRte < 0). Null for
 * other limits, and when the points are not implemented.
 */
export function storageMode(data: ModelData): BatteryMode | null {
  const mode = data.u16(P.storCtlMod);
  if (mode === null) return null;
  if ((mode & 3) === 0) return 'normal';
  const out = data.s16(P.outWRte);
  const into = data.s16(P.inWRte);
  if (mode & 2 && out !== null && out < 0) return data.u16(P.chaGriSet) === 0 ? 'hold' : 'charge';
  if (mode & 1 && into !== null && into < 0) return 'discharge';
  if (mode & 2 && out === 0) return 'hold';
  return null;
}

type StorageTarget = Omit<ReadTarget, 'signal'> & { timeoutMs: number };

async function readStorageModel(target: StorageTarget, storage: ModelLocation, signal: AbortSignal) {
  return (await readModels({ ...target, signal }, [storage]))[0]!;
}

/** Sets model 124 for `command` (its lease ending at `until`): reads it, writes what differs, reads it back. */
async function writeStorage(args: {
  target: StorageTarget;
  storage: ModelLocation;
  command: BatteryCommand;
  until: number | null;
  now: number;
  signal: AbortSignal;
}): Promise<void> {
  const { target, storage, command, until, signal } = args;
  const data = await readStorageModel(target, storage, signal);
  const wChaMax = data.scaled(data.u16(P.wChaMax), P.wChaMaxSf);
  if (!wChaMax) throw new DeviceRefusedError({ answer: 'model 124 reports no WChaMax' });
  const revertS = command.mode === 'normal' || until === null ? 0 : revertSeconds(until, args.now);
  const words = storageWords(data, storagePlan(command, wChaMax), revertS);
  const runs = storageWrites(data, words);
  if (runs.length === 0) return;
  const { modbus, unitId, timeoutMs } = target;
  for (const { offset, values } of runs)
    await modbus.writeRegisters({ unitId, address: storage.address + offset, values, timeoutMs, signal });
  const wrong = storageMismatch(await readStorageModel(target, storage, signal), words, storage.address);
  if (wrong) throw new DeviceRefusedError({ answer: wrong });
}

/**
 * Battery control through model 124: the SDK's polled control (the start's reconcile, the hold
 * at the target, the end of a command kept past its lease, the stop's Normal) around model
 * 124's writes.
 */
export function sunspecBatteryControl(
  args: ControlContext & {
    target: StorageTarget;
    storage: ModelLocation;
    limits: BatteryLimits;
    /** Whether the device implements InOutWRte_RvrtTms: without it nothing ends a forced command on the device. */
    bounded: boolean;
  },
): PolledBatteryControl {
  const { target, storage, now } = args;
  return polledBatteryControl({
    ...contextOf(args),
    limits: args.limits,
    boundedOnDevice: args.bounded,
    read: async ({ signal }) => storageMode(await readStorageModel(target, storage, signal)),
    program: ({ command, until, signal }) => writeStorage({ target, storage, command, until, now: now(), signal }),
  });
}
