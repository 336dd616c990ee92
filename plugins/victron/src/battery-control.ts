/*
 * Battery control on a Victron GX through Dynamic ESS schedule slot 0 (dess-slot.ts): every
 * forced command is a window that ends at the lease's end by the GX's own clock (read from 830
 * before each write), after which the GX goes back to the regular ESS self-consumption by
 * itself; Normal ends the window. Only the words of the slot that change are written (one
 * request), then read back. Before a forced command the driver checks that the GX can run it:
 * ESS Optimized (Hub4Mode 1 or 2, not "Keep batteries charged"), Dynamic ESS not in Auto (VRM
 * would overwrite the slot); Dynamic ESS Off is set to Node-RED (4) and an unset battery
 * capacity to the configured one, each once (they are settings the GX keeps).
 */
import {
  DeviceRefusedError,
  polledBatteryControl,
  type BatteryCommand,
  type BatteryConfig,
  type PolledBatteryControl,
} from '@heliograph/plugins-sdk';
import { contextOf, type ModbusClient, type UnitControlOptions } from '@heliograph/plugins-sdk/connections';
import { clockOf, DESS, DESS_MODE, slotFor, slotMode, slotOf, slotWrite, type Slot } from './dess-slot.js';

/** What the GX holds of Dynamic ESS and ESS, and its clock. */
interface GxState {
  /** The GX's time, ms, and ours when it was read. */
  deviceNowMs: number;
  readAt: number;
  /** /Dc/Battery/Soc, the SOC Dynamic ESS works with, %. */
  soc: number | null;
  capacityTenths: number;
  dessMode: number;
  slot: Slot;
  essState: number;
  hub4Mode: number;
}

/** Why the GX cannot run a forced command, or null. */
function unable(state: GxState): string | null {
  if (state.hub4Mode === 3)
    return 'ESS mode is External control (Hub4Mode 3, register 2902): set ESS to Optimized on the GX';
  if (state.essState === 9)
    return 'ESS mode is "Keep batteries charged" (register 2900 = 9): set ESS to Optimized on the GX';
  if (state.dessMode === DESS_MODE.auto)
    return 'Dynamic ESS runs in Auto (VRM schedules, register 5423 = 1): set it to Off or Node-RED on the GX';
  return null;
}

/** Where the system unit is: the connection, its unit id and the time a request may take. */
interface GxTarget {
  modbus: ModbusClient;
  unitId: number;
  timeoutMs: number;
  now: () => number;
}

const readWords = (t: GxTarget, address: number, count: number, signal: AbortSignal) =>
  t.modbus.readHoldingRegisters({ unitId: t.unitId, address, count, timeoutMs: t.timeoutMs, signal });
const writeWords = (t: GxTarget, address: number, values: number[], signal: AbortSignal) =>
  t.modbus.writeRegisters({ unitId: t.unitId, address, values, timeoutMs: t.timeoutMs, signal });

/** Reads the GX's clock, SOC, ESS mode and Dynamic ESS; `polledSoc` stands in where 843 is not given. */
async function readState(t: GxTarget, polledSoc: number | null, signal: AbortSignal): Promise<GxState> {
  // 830..833 the clock, 840..843 the battery (the GX answers the reserved words between).
  const head = await readWords(t, DESS.clock, DESS.soc - DESS.clock + 1, signal);
  const readAt = t.now();
  const socWord = head[DESS.soc - DESS.clock];
  const ess = await readWords(t, DESS.essState, 3, signal);
  const dess = await readWords(t, DESS.capacity, DESS.slot + DESS.slotLength - DESS.capacity, signal);
  const at = (address: number) => dess[address - DESS.capacity] ?? 0;
  return {
    deviceNowMs: clockOf(head.slice(0, 4)),
    readAt,
    soc: socWord === undefined || socWord === 0xffff ? polledSoc : socWord,
    capacityTenths: at(DESS.capacity),
    dessMode: at(DESS.mode),
    slot: slotOf(dess.slice(DESS.slot - DESS.capacity)),
    essState: ess[0] ?? 0,
    hub4Mode: ess[2] ?? 0,
  };
}

const modeOf = (state: GxState) =>
  slotMode({ dessMode: state.dessMode, slot: state.slot, nowS: state.deviceNowMs / 1000, soc: state.soc });

/**
 * Sets slot 0 for `command` (its lease ending at `until`, our clock): checks the GX can run a
 * forced one (and sets Dynamic ESS's mode and capacity once), writes what differs, reads it back.
 */
async function writeSlot(
  t: GxTarget,
  args: {
    command: BatteryCommand;
    until: number | null;
    battery: BatteryConfig;
    polledSoc: number | null;
    log: (message: string) => void;
    signal: AbortSignal;
  },
): Promise<void> {
  const { command, until, battery, log, signal } = args;
  const state = await readState(t, args.polledSoc, signal);
  // Outside Node-RED mode slot 0 is not Heliograph's (VRM's in Auto, unused when Off): nothing to end.
  if (command.mode === 'normal' && state.dessMode !== DESS_MODE.nodeRed) return;
  if (command.mode !== 'normal') {
    const problem = unable(state);
    if (problem) throw new DeviceRefusedError({ answer: problem });
    // Settings the GX keeps: written once, when they are not what the slot needs.
    if (state.capacityTenths === 0) {
      await writeWords(t, DESS.capacity, [Math.round(battery.capacityKwh * 10)], signal);
      log(`Dynamic ESS battery capacity (5420) set to ${battery.capacityKwh} kWh`);
    }
    if (state.dessMode !== DESS_MODE.nodeRed) {
      await writeWords(t, DESS.mode, [DESS_MODE.nodeRed], signal);
      log('Dynamic ESS mode (5423) set to Node-RED (4): slot 0 carries the battery command');
    }
  }
  // The lease's end on the GX's clock: ours plus how far the GX's runs ahead.
  const offsetMs = state.deviceNowMs - state.readAt;
  const deviceNowS = Math.floor(state.deviceNowMs / 1000);
  const next = slotFor({
    command,
    soc: state.soc,
    capacityKwh: battery.capacityKwh,
    deviceNowS,
    deviceUntilS: until === null ? deviceNowS : Math.floor((until + offsetMs) / 1000),
    current: state.slot,
  });
  const request = slotWrite(state.slot, next);
  if (request) await writeWords(t, request.address, request.values, signal);
  const back = await readState(t, args.polledSoc, signal);
  if (slotWrite(back.slot, next))
    throw new DeviceRefusedError({ answer: 'Dynamic ESS slot 0 (5424..5430) reads back otherwise than written' });
  if (command.mode !== 'normal' && back.dessMode !== DESS_MODE.nodeRed)
    throw new DeviceRefusedError({ answer: `Dynamic ESS mode (5423) reads ${back.dessMode}, not Node-RED (4)` });
}

/**
 * Battery control through slot 0: the SDK's polled control (the start's reconcile, the end of a
 * window kept past its lease, the stop's Normal) around the slot's writes. The slot carries the
 * target SOC, so the GX stops there by itself.
 */
export function victronBatteryControl(args: UnitControlOptions): PolledBatteryControl {
  const { battery, now, log } = args;
  const target: GxTarget = { modbus: args.modbus, unitId: args.unitId, timeoutMs: args.timeoutMs, now };
  /** The SOC of the last poll, where the GX's own cannot be read. */
  let polledSoc: number | null = null;

  const polled = polledBatteryControl({
    ...contextOf(args),
    limits: { ...battery, modes: ['normal', 'hold', 'charge', 'discharge'] },
    boundedOnDevice: true,
    stopsAtTarget: true,
    read: async ({ signal }) => modeOf(await readState(target, polledSoc, signal)),
    program: ({ command, until, signal }) => writeSlot(target, { command, until, battery, polledSoc, log, signal }),
    // A window the GX shows past its lease that cannot be told (its SOC unknown): ended all the same.
    lapsed: async ({ found, signal }) => {
      if (found !== null) return;
      log('a window it cannot tell still open after its lease ended: slot 0 ended');
      const normal = { ...polled.control.current(), mode: 'normal' as const };
      await writeSlot(target, { command: normal, until: null, battery, polledSoc, log, signal });
    },
  });
  return {
    ...polled,
    afterPoll: (poll) => {
      polledSoc = poll.soc;
      return polled.afterPoll(poll);
    },
  };
}
