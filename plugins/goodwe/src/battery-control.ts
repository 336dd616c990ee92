/*
 * Battery control on a GoodWe ET / EH through its eco mode, as the goodwe library's
 * `set_operation_mode` drives it (marcelblijleven/goodwe goodwe/et.py: ECO_CHARGE /
 * ECO_DISCHARGE write eco_mode_1, switch groups 2..4 off and set work_mode 47000 to Eco, 3),
 * each forced command a lease on the device: group 1 forces the battery from the inverter's
 * time now (its clock at 45200) to the lease's end, on today's weekday only, and the rest of
 * the time the inverter is in self-use (eco-mode.ts), so it is back to normal by itself when
 * nobody renews. Normal switches the work mode to General (0) and group 1 off. Every write
 * sends only the registers whose words change: a renewal moves the group's end, one register.
 *
 * The EMS mode (47511/47512, et.py `set_ems_mode`) has no end on the device, so it is not used
 * to force the battery; an EMS mode other than Auto found on the device is not normal (a start
 * ends it), and Normal puts it back to Auto (1).
 */
import {
  DeviceRefusedError,
  polledBatteryControl,
  type BatteryCommand,
  type BatteryConfig,
  type BatteryMode,
  type PolledBatteryControl,
} from '@heliograph/plugins-sdk';
import {
  contextOf,
  ModbusExceptionError,
  type ModbusClient,
  type UnitControlOptions,
} from '@heliograph/plugins-sdk/connections';
import {
  changedRuns,
  CLOCK,
  decodeGroup,
  deviceMode,
  deviceTime,
  ECO,
  EMS_MODE,
  encodeGroup,
  GENERAL,
  GROUPS_V1,
  GROUPS_V2,
  isOn,
  leaseGroup,
  permille,
  switchedOff,
  WORK_MODE,
  type EcoGroup,
  type GroupVersion,
} from './eco-mode.js';

/** EMS modes that leave the battery to the inverter: 0 (unset) and 1 AUTO (inverter.py `EMSMode`). */
const EMS_AUTO = 1;
const emsAuto = (word: number) => word === 0 || word === EMS_AUTO;

/** What battery control reads before it writes. */
interface DeviceState {
  workMode: number;
  ems: number;
  /** The four groups' registers, one after the other. */
  block: number[];
  clock: number[];
  soc: number;
}

class EcoIo {
  readonly size: number;
  readonly base: number;

  constructor(
    private readonly modbus: ModbusClient,
    private readonly unitId: number,
    private readonly timeoutMs: number,
    readonly version: GroupVersion,
  ) {
    this.size = version === 'v2' ? 6 : 4;
    this.base = version === 'v2' ? GROUPS_V2[0] : GROUPS_V1[0];
  }

  read(address: number, count: number, signal: AbortSignal): Promise<number[]> {
    return this.modbus.readHoldingRegisters({ unitId: this.unitId, address, count, timeoutMs: this.timeoutMs, signal });
  }

  groups(block: readonly number[]): EcoGroup[] {
    return [0, 1, 2, 3].map((i) => decodeGroup(block.slice(i * this.size, (i + 1) * this.size), this.version));
  }

  async state(signal: AbortSignal): Promise<DeviceState> {
    const [workMode] = await this.read(WORK_MODE, 1, signal);
    const [ems] = await this.read(EMS_MODE, 1, signal);
    const block = await this.read(this.base, 4 * this.size, signal);
    const clock = await this.read(CLOCK, 3, signal);
    const [soc] = await this.read(37007, 1, signal);
    return { workMode: workMode!, ems: ems!, block, clock, soc: soc! };
  }

  /**
   * Writes what differs: the groups' words (as the library does, 06 for one register and 16 for
   * more), then the work mode and the EMS mode; for Normal the work mode first. Reads them back
   * and refuses on a mismatch.
   */
  async write(old: DeviceState, next: { workMode: number; ems: number; block: number[] }, signal: AbortSignal) {
    const send = async ({ address, values }: { address: number; values: number[] }) => {
      const request = { unitId: this.unitId, address, timeoutMs: this.timeoutMs, signal };
      if (values.length === 1) await this.modbus.writeRegister({ ...request, value: values[0]! });
      else await this.modbus.writeRegisters({ ...request, values });
    };
    const runs = changedRuns(this.base, old.block, next.block);
    const modes = [
      ...(next.workMode === old.workMode ? [] : [{ address: WORK_MODE, values: [next.workMode] }]),
      ...(next.ems === old.ems ? [] : [{ address: EMS_MODE, values: [next.ems] }]),
    ];
    const order = next.workMode === ECO ? [...runs, ...modes] : [...modes, ...runs];
    for (const run of order) await send(run);
    if (order.length === 0) return;
    const after = await this.state(signal);
    const at = next.block.findIndex((word, i) => word !== old.block[i] && after.block[i] !== word);
    if (at >= 0)
      throw new DeviceRefusedError({
        answer: `register ${this.base + at} reads ${after.block[at]} after writing ${next.block[at]}`,
      });
    if (after.workMode !== next.workMode)
      throw new DeviceRefusedError({
        answer: `work mode (47000) reads ${after.workMode} after writing ${next.workMode}`,
      });
  }

  /** What the device does now; null when it cannot be told (a group on for later, an EMS mode, a clock without a date). */
  async mode(signal: AbortSignal): Promise<BatteryMode | null> {
    const state = await this.state(signal);
    if (!emsAuto(state.ems)) return null;
    try {
      return deviceMode({ workMode: state.workMode, groups: this.groups(state.block), now: deviceTime(state.clock) });
    } catch {
      return state.workMode === ECO ? null : 'normal';
    }
  }
}

/** Which groups the inverter has: V2 when 47547.. answers (as et.py `read_device_info` checks), else V1. */
export async function groupVersion(
  modbus: ModbusClient,
  unitId: number,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<GroupVersion> {
  try {
    await modbus.readHoldingRegisters({ unitId, address: GROUPS_V2[0], count: 6, timeoutMs, signal });
    return 'v2';
  } catch (err) {
    if (err instanceof ModbusExceptionError && err.code === 2) return 'v1';
    throw err;
  }
}

/** The block with group 1 switched off, the rest as it is. */
function normalBlock(io: EcoIo, state: DeviceState): number[] {
  const next = [...state.block];
  next.splice(0, io.size, ...encodeGroup(switchedOff(io.groups(state.block)[0]!), io.version));
  return next;
}

/** Work mode General (from Eco) and group 1 off, where they are not yet; whether anything was written. */
async function switchOff(io: EcoIo, signal: AbortSignal): Promise<boolean> {
  const state = await io.state(signal);
  if (!isOn(io.groups(state.block)[0]!) && state.workMode !== ECO) return false;
  const workMode = state.workMode === ECO ? GENERAL : state.workMode;
  await io.write(state, { workMode, ems: state.ems, block: normalBlock(io, state) }, signal);
  return true;
}

/**
 * Sets the device for `command`: Normal is General with group 1 off (and EMS Auto); a forced
 * command is group 1 for the lease (eco-mode.ts `leaseGroup`), groups 2..4 off and Eco. Only
 * what changes is written.
 */
async function writeCommand(args: {
  io: EcoIo;
  command: BatteryCommand;
  until: number | null;
  /** How long the lease has left, ms. */
  leaseMs: number;
  battery: BatteryConfig;
  ratedW: number;
  signal: AbortSignal;
}): Promise<void> {
  const { io, command, signal } = args;
  const state = await io.state(signal);
  const ems = emsAuto(state.ems) ? state.ems : EMS_AUTO;
  if (command.mode === 'normal' || args.until === null) {
    const workMode = state.workMode === ECO ? GENERAL : state.workMode;
    await io.write(state, { workMode, ems, block: normalBlock(io, state) }, signal);
    return;
  }
  const groups = io.groups(state.block);
  const group = leaseGroup({
    command,
    group: groups[0]!,
    eco: state.workMode === ECO,
    now: deviceTime(state.clock),
    leaseMs: args.leaseMs,
    soc: state.soc,
    minSoc: args.battery.minSoc,
    powerPct: (command.powerW / args.ratedW) * 100,
    permille: permille(groups[0]!),
  });
  const next = [...encodeGroup(group, io.version)];
  // The other groups off: one group alone steers the battery, as the library's ECO_CHARGE does.
  for (let i = 1; i < 4; i++) next.push(...encodeGroup(switchedOff(groups[i]!), io.version));
  await io.write(state, { workMode: ECO, ems, block: next }, signal);
}

/**
 * Battery control through eco group 1: the SDK's polled control (the start's reconcile, the end
 * of a group kept past its lease, the stop's Normal) around the group's writes. A V2 group
 * carries the charge's target SOC, so the inverter stops a charge there by itself; a discharge
 * (and a charge on V1 groups, which have no SOC) is held by the driver at its target. A lease
 * run out with the device back to self-use gets its group switched off, so it cannot come round
 * on the same weekday.
 */
export function goodweBatteryControl(
  args: UnitControlOptions & {
    version: GroupVersion;
    /** The inverter's rated power (W, 35001): group power is a share of it. */
    ratedW: number;
  },
): PolledBatteryControl {
  const { battery, now, log } = args;
  const io = new EcoIo(args.modbus, args.unitId, args.timeoutMs, args.version);
  return polledBatteryControl({
    ...contextOf(args),
    limits: { ...battery, modes: ['normal', 'hold', 'charge', 'discharge'] },
    boundedOnDevice: true,
    stopsAtTarget: io.version === 'v2' ? ['charge'] : false,
    read: ({ signal }) => io.mode(signal),
    program: ({ command, until, signal }) =>
      writeCommand({
        io,
        command,
        until,
        leaseMs: until === null ? 0 : until - now(),
        battery,
        ratedW: args.ratedW,
        signal,
      }),
    lapsed: async ({ signal }) => {
      // Back to self-use by itself: switch the group off too, so it cannot come round next week.
      if (await switchOff(io, signal))
        log('the battery control lease ran out with nobody renewing it: eco group 1 switched off');
    },
  });
}
