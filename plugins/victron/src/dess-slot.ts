/*
 * The Dynamic ESS schedule slot 0 of a Victron GX as the lease of a battery command. Victron's
 * CCGX Modbus TCP register list (victronenergy/dbus_modbustcp attributes.csv) gives slot 0 of
 * com.victronenergy.settings /Settings/DynamicEss/Schedule/0/* on unit 100: AllowGridFeedIn
 * (5424, uint16), Duration (5425, uint16, s), Restrictions (5426, uint16), Soc (5427, uint16,
 * %), Start (5428, int32, unix time) and Strategy (5430, uint16: 0 Target SOC, 1
 * Self-consumption); /Settings/DynamicEss/Mode (5423: 0 Off, 1 Auto, 4 Node-RED) and
 * BatteryCapacity (5420, kWh x 10); com.victronenergy.system /DateAndTime (830, four registers,
 * the GX's UTC seconds: mappings.cpp TimeOperation).
 *
 * The GX runs the slot itself (victronenergy/dbus-systemcalc-py delegates/dynamicess.py,
 * `DynamicEss._on_timer`, every 5 s): while its clock is within Start..Start+Duration, Target
 * SOC charges (from the grid unless restricted) or discharges (to the grid where feed-in is
 * allowed) at `(|Soc - SOC| x capacity) / time left` (`update_chargerate`); outside every
 * window it finds "No matching schedule" (error 3) and goes back to the regular ESS
 * self-consumption by itself. So the window's end is the lease's end on the device, by the GX's
 * own clock. Restrictions are the delegate's `Restrictions` flags (1 battery to grid, 2 grid
 * to battery): the labels of 5426 in attributes.csv have the two swapped, those of 5405 and
 * the code agree; the code is what the GX runs.
 */
import type { BatteryCommand, BatteryMode } from '@heliograph/plugins-sdk';

/** Unit 100's registers of Dynamic ESS and the GX's clock (attributes.csv rows). */
export const DESS = {
  clock: 830,
  /** com.victronenergy.system /Dc/Battery/Soc (843, uint16 %): the SOC the delegate works with. */
  soc: 843,
  capacity: 5420,
  mode: 5423,
  /** Slot 0: AllowGridFeedIn, Duration, Restrictions, Soc, Start (2), Strategy. */
  slot: 5424,
  slotLength: 7,
  /** ESS: /Settings/CGwacs/BatteryLife/State (9 Keep batteries charged), /Settings/CGwacs/Hub4Mode (3 External control). */
  essState: 2900,
  hub4Mode: 2902,
} as const;

/** Dynamic ESS modes (5423). */
export const DESS_MODE = { off: 0, auto: 1, nodeRed: 4 } as const;
/** The delegate's Restrictions flags. */
export const RESTRICT = { batteryToGrid: 1, gridToBattery: 2 } as const;
/** The longest Duration the uint16 register holds, s. */
const MAX_DURATION_S = 0xffff;

/** Slot 0 as its registers hold it. */
export interface Slot {
  feedIn: number;
  durationS: number;
  restrictions: number;
  soc: number;
  /** Unix seconds; 0: no window. */
  start: number;
  strategy: number;
}

/** The seven words of slot 0 (5424..5430) as a slot. */
export function slotOf(words: readonly number[]): Slot {
  const w = (i: number) => words[i] ?? 0;
  return {
    feedIn: w(0),
    durationS: w(1),
    restrictions: w(2),
    soc: w(3),
    start: ((w(4) << 16) | w(5)) >>> 0,
    strategy: w(6),
  };
}

/** A slot as the seven words 5424..5430 (Start high word first, as dbus_modbustcp sends int32). */
export function slotWords(slot: Slot): number[] {
  return [
    slot.feedIn,
    slot.durationS,
    slot.restrictions,
    slot.soc,
    (slot.start >>> 16) & 0xffff,
    slot.start & 0xffff,
    slot.strategy,
  ];
}

/** The GX's UTC time in ms from the four words of 830 (a uint64 of seconds, high word first). */
export function clockOf(words: readonly number[]): number {
  const [a = 0, b = 0, c = 0, d = 0] = words;
  return (((a * 0x10000 + b) * 0x10000 + c) * 0x10000 + d) * 1000;
}

/** Whether the slot's window holds the GX's time `nowS` (s), as `ScheduledWindow.__contains__` tests it. */
export function inWindow(slot: Slot, nowS: number): boolean {
  return slot.start > 0 && nowS >= slot.start && nowS <= slot.start + slot.durationS;
}

/** What the battery is told to do and where it stands, for a slot. */
export interface SlotInput {
  command: BatteryCommand;
  /** The battery's SOC now, %, or null when unknown. */
  soc: number | null;
  capacityKwh: number;
  /** The GX's time now, s. */
  deviceNowS: number;
  /** The lease's end by the GX's clock, s. */
  deviceUntilS: number;
  /** The slot on the device now. */
  current: Slot;
}

/**
 * The slot for a command: Normal ends the window (Start 0); a forced command is a Target SOC
 * window to the lease's end. Charge and Discharge aim at the SOC the power reaches by the end
 * (the GX's rate is `|Soc - SOC| x capacity / time left`, so that rate is the power), never past
 * the command's target; Hold is a target of 100 % with grid-to-battery restricted (PV may
 * charge, nothing discharges). A window that still runs keeps its Start and only moves its end,
 * so a renewal changes the Duration (and the aim).
 */
export function slotFor(input: SlotInput): Slot {
  const { command, current, deviceNowS, deviceUntilS } = input;
  if (command.mode === 'normal') return { ...current, start: 0 };
  const running = inWindow(current, deviceNowS) && deviceUntilS - current.start <= MAX_DURATION_S;
  const start = running ? current.start : deviceNowS;
  const durationS = Math.max(1, deviceUntilS - start);
  const base = { start, durationS, strategy: 0 };
  if (command.mode === 'hold') return { ...base, feedIn: 0, restrictions: RESTRICT.gridToBattery, soc: 100 };
  const soc = input.soc ?? command.targetSoc;
  // % by the end; a whole % (the register's unit), with the second the clocks are read apart forgiven.
  const reach = (command.powerW * Math.max(0, deviceUntilS - deviceNowS)) / 3600 / (input.capacityKwh * 10);
  const slack = 0.05;
  if (command.mode === 'charge')
    return { ...base, feedIn: 0, restrictions: 0, soc: Math.min(command.targetSoc, Math.floor(soc + reach + slack)) };
  return { ...base, feedIn: 1, restrictions: 0, soc: Math.max(command.targetSoc, Math.ceil(soc - reach - slack)) };
}

/**
 * What the GX makes of slot 0 at `nowS`: normal outside the window (or with Dynamic ESS not in
 * Node-RED mode, where slot 0 is not Heliograph's), self-consumption for strategy 1, and for a
 * Target SOC: hold with grid-to-battery restricted, charge for a target above the SOC,
 * discharge for one below with feed-in, else hold. Null when it cannot tell.
 */
export function slotMode(args: { dessMode: number; slot: Slot; nowS: number; soc: number | null }): BatteryMode | null {
  const { slot, soc } = args;
  if (args.dessMode !== DESS_MODE.nodeRed || !inWindow(slot, args.nowS) || slot.strategy === 1) return 'normal';
  if (slot.strategy !== 0) return null;
  if (slot.restrictions & RESTRICT.gridToBattery) return 'hold';
  if (soc === null) return null;
  if (slot.soc > soc) return 'charge';
  if (slot.soc < soc && slot.feedIn === 1) return 'discharge';
  return 'hold';
}

/**
 * The one write request that takes slot 0 from `current` to `next`: the run from the first
 * word that differs to the last, or null when none does.
 */
export function slotWrite(current: Slot, next: Slot): { address: number; values: number[] } | null {
  const from = slotWords(current);
  const to = slotWords(next);
  const changed = to.map((word, i) => (word !== from[i] ? i : -1)).filter((i) => i >= 0);
  if (changed.length === 0) return null;
  const first = changed[0]!;
  const last = changed.at(-1)!;
  return { address: DESS.slot + first, values: to.slice(first, last + 1) };
}
