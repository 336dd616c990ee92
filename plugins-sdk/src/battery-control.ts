/*
 * Battery control (SDK 1.3): one capability a driver declares for the device that commands a
 * battery, so a planner (or a user) can switch it between self-consumption, hold, grid
 * charging and discharging through the core's one write path (validated, audited, refused
 * writes reported). Every forced command (hold, charge, discharge) carries a lease: the
 * device returns to normal by itself at its end unless the command is written again, so no
 * stop, crash or silent link leaves a battery forced. Re-exported from the SDK's main entry.
 */
import { z } from 'zod';
import type { MetricDeclaration, PluginStore, SettingDeclaration, SettingOption } from './context.js';
import type { SettingsTogether, SiteApi } from './site.js';

/**
 * What the battery is told to do.
 * - `normal`: self-consumption, the device's own default behaviour;
 * - `hold`: do not discharge (PV may still charge it; the load comes from the grid);
 * - `charge`: charge from the grid at up to `powerW` until `targetSoc`;
 * - `discharge`: discharge (to the load, and export where allowed) at up to `powerW` down to `targetSoc`.
 *
 * @example
 * const mode: BatteryMode = 'hold';
 */
export type BatteryMode = 'normal' | 'hold' | 'charge' | 'discharge';

/** Every mode, in the order clients list them. */
export const BATTERY_MODES: readonly BatteryMode[] = ['normal', 'hold', 'charge', 'discharge'];

/**
 * One command for the battery. `powerW` and `targetSoc` matter for `charge` and `discharge`;
 * the other modes carry the current values along.
 *
 * @example
 * const command: BatteryCommand = { mode: 'charge', powerW: 3000, targetSoc: 90 };
 */
export interface BatteryCommand {
  mode: BatteryMode;
  /** W, 0 or more; never above the mode's limit (max charge or max discharge power). */
  powerW: number;
  /** %, from the battery's minimum SOC to 100. */
  targetSoc: number;
}

/**
 * What the device can do. Published as the info metrics `battery_capacity`,
 * `battery_max_charge_power`, `battery_max_discharge_power` and `battery_min_soc`.
 *
 * @example
 * const limits: BatteryLimits = { capacityKwh: 10, maxChargeW: 5000, maxDischargeW: 5000, minSoc: 10, modes: ['normal', 'hold', 'charge'] };
 */
export interface BatteryLimits {
  /** Usable capacity, kWh. */
  capacityKwh: number;
  /** Largest charging power, W. */
  maxChargeW: number;
  /** Largest discharging power, W. */
  maxDischargeW: number;
  /** The device never discharges below this SOC, %; the lowest target a command may carry. */
  minSoc: number;
  /** The modes this device supports; always includes `normal`. */
  modes: readonly BatteryMode[];
}

/**
 * How long a forced command lasts on the device unless it is written again: 30 minutes. The
 * planner writes its command again every quarter hour; a command set by hand lasts one lease.
 */
export const BATTERY_LEASE_MS = 30 * 60_000;

/** What {@link batteryControl} takes: the device's limits and the function that commands it. */
export interface BatteryControlOptions {
  limits: BatteryLimits;
  /**
   * Commands the device; resolves once the device confirmed it, throws when it did not
   * (`DeviceRefusedError`, `NoAnswerError`, any Error), exactly as a setting's `write`.
   * Called only with a command within the limits and a supported mode.
   *
   * `until` (ms since the epoch, the site's clock) is the lease's end for a forced command
   * (hold, charge, discharge), null for `normal`: a driver with `boundedOnDevice` programs the
   * device so that it returns to normal by itself at `until` at the latest (a time-of-use slot
   * that ends there, a revert timeout), and a later `apply` of the same command moves the end.
   */
  apply(args: { command: BatteryCommand; until: number | null; signal: AbortSignal }): Promise<void>;
  /**
   * Whether the device itself ends a forced command at `until` (a timer, a revert timeout), so
   * that a stop, a crash or a silent link leaves it forced for one lease at the most. A device
   * that cannot must say false: it is published (`battery_control_lease` 0), and the planner
   * then refuses Charge and Discharge on it unless the owner accepts the risk in its config.
   */
  boundedOnDevice: boolean;
  /** The site's clock (`ctx.now`), for the lease. */
  now: () => number;
  /**
   * What the device is doing now, read from the device, for {@link BatteryControl.startClean}:
   * `normal`, a forced mode, or null when it cannot tell. Without it the start always ends
   * whatever may be in force (writes Normal once).
   */
  read?(args: { signal: AbortSignal }): Promise<BatteryMode | null>;
  /**
   * The power and target in force before the first write, e.g. from {@link loadBatteryCommand};
   * default full power to 100 %. The mode always starts as `normal`: nothing restores a forced
   * command from storage (a command nobody renews must not come back after a restart).
   */
  initial?: Partial<BatteryCommand>;
  /** Where each confirmed command is kept (under {@link BATTERY_COMMAND_KEY}), for `initial`'s power and target. */
  store?: PluginStore;
}

/** What {@link batteryControl} returns: the declarations to add to the device and the info values to publish. */
export interface BatteryControl {
  /** The four info metrics (numbers, group `Info`). */
  metrics: MetricDeclaration[];
  /** `battery_control_mode`, `battery_control_power`, `battery_control_target_soc`. */
  settings: SettingDeclaration[];
  /** The info metrics' values, for `ctx.topics.publish`. */
  info: Record<string, number>;
  /**
   * The command in force: the last one the device confirmed, or `normal` once its lease has
   * run out (the device went back to normal by itself).
   */
  current(): BatteryCommand;
  /** When the forced command in force ends on the device (ms since the epoch); null in `normal`. */
  until(): number | null;
  /**
   * `info` and the three settings' values as they stand (a lapsed lease shows `Normal`), for
   * the driver's `ctx.topics.publish` at each poll.
   */
  values(): Record<string, number | string>;
  /**
   * The start-up reconcile, for the driver's first poll after the device is declared: reads
   * what the device is doing (`read`) and, when it is forced or cannot be told, ends it by
   * writing Normal through the core's write path (so it is audited). No controller owns a
   * command at a driver's start; an active planner writes its own again. A command this run
   * already gave (before the first poll) that the device shows is left in force. Resolves with what
   * was found; a failure to write is thrown for the poll to report.
   */
  startClean(args: { site: Pick<SiteApi, 'write'>; device: string; signal: AbortSignal }): Promise<BatteryMode | null>;
  /**
   * The stop's counterpart, for the driver's async cleanup (before it closes its connection):
   * a forced command still in force is ended by writing Normal through the core's write path
   * (audited; a failure is in the audit and the log). Resolves with whether it wrote.
   */
  stopClean(args: { site: Pick<SiteApi, 'write'>; device: string }): Promise<boolean>;
}

/** The topic names the capability adds to a device. */
export const BATTERY_CONTROL_TOPICS = {
  mode: 'battery_control_mode',
  power: 'battery_control_power',
  targetSoc: 'battery_control_target_soc',
  capacity: 'battery_capacity',
  maxChargePower: 'battery_max_charge_power',
  maxDischargePower: 'battery_max_discharge_power',
  minSoc: 'battery_min_soc',
  lease: 'battery_control_lease',
} as const;

/**
 * A config field for the battery's limits where the device does not report them: a driver
 * puts it in its config schema (`battery: batteryConfigSchema.optional()`) and offers battery
 * control only when it is given. The parsed value plus `modes` is a {@link BatteryLimits}.
 *
 * @example
 * const configSchema = z.strictObject({ connection: connectionSchema, battery: batteryConfigSchema.optional() });
 * // plugins.json: "battery": { "capacityKwh": 10.24, "maxChargeW": 5000, "maxDischargeW": 5000, "minSoc": 20 }
 */
export const batteryConfigSchema = z
  .strictObject({
    capacityKwh: z
      .number()
      .positive()
      .max(1000)
      .describe('Usable capacity of the battery in kWh.')
      .meta({ title: 'Usable capacity' }),
    maxChargeW: z
      .number()
      .int()
      .min(0)
      .max(100_000)
      .default(5000)
      .describe('Largest charging power in W.')
      .meta({ title: 'Max charge power' }),
    maxDischargeW: z
      .number()
      .int()
      .min(0)
      .max(100_000)
      .default(5000)
      .describe('Largest discharging power in W.')
      .meta({ title: 'Max discharge power' }),
    minSoc: z
      .number()
      .int()
      .min(0)
      .max(100)
      .default(20)
      .describe('The battery is never discharged below this state of charge (%).')
      .meta({ title: 'Minimum state of charge' }),
  })
  .describe('The battery behind the inverter, for battery control. Without it, none is offered.')
  .meta({ title: 'Battery control' });

/**
 * A parsed {@link batteryConfigSchema} value: the battery's capacity, power limits and lowest
 * state of charge.
 *
 * @example
 * function myBatteryControl(battery: BatteryConfig) { return battery.maxChargeW; }
 */
export type BatteryConfig = z.output<typeof batteryConfigSchema>;

/** The store key {@link batteryControl} keeps the command in force under. */
export const BATTERY_COMMAND_KEY = 'battery_control';

/**
 * A stored {@link BatteryCommand}, parsed like any outside input.
 *
 * @example
 * batteryCommandSchema.safeParse(await ctx.store.get('battery_control')).success;
 */
export const batteryCommandSchema = z.object({
  mode: z.enum(['normal', 'hold', 'charge', 'discharge']),
  powerW: z.number().min(0),
  targetSoc: z.number().min(0).max(100),
});

/**
 * The command {@link batteryControl} last kept in `store`, or undefined when there is none
 * (or it cannot be read), for `initial`.
 *
 * @example
 * const control = batteryControl({ limits, apply, store: ctx.store, initial: await loadBatteryCommand(ctx.store) });
 */
export async function loadBatteryCommand(store: PluginStore): Promise<BatteryCommand | undefined> {
  const parsed = batteryCommandSchema.safeParse(await store.get(BATTERY_COMMAND_KEY));
  return parsed.success ? parsed.data : undefined;
}

const LABELS: Record<BatteryMode, string> = {
  normal: 'Normal',
  hold: 'Hold',
  charge: 'Charge',
  discharge: 'Discharge',
};

/**
 * The label clients see for a mode (the `battery_control_mode` option's label): the one copy
 * of the labels; code keeps modes by identifier and converts only where it shows them.
 *
 * @example
 * batteryModeLabel('charge'); // 'Charge'
 */
export function batteryModeLabel(mode: BatteryMode): string {
  return LABELS[mode];
}

/**
 * The mode a `battery_control_mode` value names (its label as clients see it, or the
 * identifier), case-insensitively; null for anything else (null, a stale value, another text).
 *
 * @example
 * batteryModeOf((await ctx.site.values({ filter: 'inverter_1/battery_control_mode' }))['inverter_1/battery_control_mode']); // 'charge'
 */
export function batteryModeOf(value: unknown): BatteryMode | null {
  if (typeof value !== 'string') return null;
  const text = value.trim().toLowerCase();
  return BATTERY_MODES.find((m) => m === text || LABELS[m].toLowerCase() === text) ?? null;
}

/** The limits' problem, or null when they make sense. */
function limitsProblem(limits: BatteryLimits): string | null {
  const { capacityKwh, maxChargeW, maxDischargeW, minSoc, modes } = limits;
  if (!(capacityKwh > 0)) return `capacityKwh must be above 0, not ${capacityKwh}`;
  if (!(maxChargeW >= 0) || !(maxDischargeW >= 0)) return 'maxChargeW and maxDischargeW must be 0 or more';
  if (!(minSoc >= 0 && minSoc <= 100)) return `minSoc must be from 0 to 100, not ${minSoc}`;
  if (!modes.includes('normal')) return 'modes must include normal';
  const unknown = modes.find((m) => !BATTERY_MODES.includes(m));
  return unknown ? `unknown mode ${JSON.stringify(unknown)}` : null;
}

/**
 * Why a command does not fit the limits, or null when it does.
 *
 * @example
 * commandProblem(limits, { mode: 'charge', powerW: 9000, targetSoc: 90 }); // 'charge power 9000 W is above the battery's max charge power 5000 W'
 */
export function commandProblem(limits: BatteryLimits, command: BatteryCommand): string | null {
  const { mode, powerW, targetSoc } = command;
  if (!limits.modes.includes(mode)) return `this device does not support the mode ${mode}`;
  if (!(powerW >= 0)) return `power must be 0 W or more, not ${powerW}`;
  if (!(targetSoc >= limits.minSoc && targetSoc <= 100))
    return `target SOC ${targetSoc} % is outside the battery's range ${limits.minSoc}..100 %`;
  if (mode === 'charge' && powerW > limits.maxChargeW)
    return `charge power ${powerW} W is above the battery's max charge power ${limits.maxChargeW} W`;
  if (mode === 'discharge' && powerW > limits.maxDischargeW)
    return `discharge power ${powerW} W is above the battery's max discharge power ${limits.maxDischargeW} W`;
  return null;
}

/**
 * Declares battery control for the device that commands a battery (normally the inverter).
 * Add the returned `metrics` and `settings` to that device's `ctx.topics.declare` and
 * publish `info` with its other values. Clients then see:
 * - `battery_control_mode`: options `Normal`, `Hold`, `Charge`, `Discharge` (the supported ones);
 * - `battery_control_power`: W, 0..max(maxChargeW, maxDischargeW);
 * - `battery_control_target_soc`: %, minSoc..100, step 1;
 * - info metrics `battery_capacity` (kWh), `battery_max_charge_power` (W),
 *   `battery_max_discharge_power` (W), `battery_min_soc` (%).
 *
 * Writing the mode calls `apply` with the current power and target, or with the power and
 * target written together with it (SDK 1.4, `ctx.site.write`'s `together`: one write, one
 * audit entry, one `apply`); writing the power or the target alone while the mode is
 * `charge` or `discharge` applies the command again. A command that
 * does not fit the limits (a charge power above `maxChargeW`, say) is refused before `apply`
 * runs, and the write is reported as failed. The new value shows once `apply` resolved.
 *
 * @example
 * const control = batteryControl({
 *   limits: { capacityKwh: 10, maxChargeW: 5000, maxDischargeW: 5000, minSoc: 10, modes: ['normal', 'hold', 'charge'] },
 *   apply: async ({ command, signal }) => {
 *     if (command.mode === 'charge') await device.startGridCharge({ watts: command.powerW, untilSoc: command.targetSoc, signal });
 *     else if (command.mode === 'hold') await device.blockDischarge({ signal });
 *     else await device.selfConsumption({ signal });
 *   },
 * });
 * ctx.topics.declare({ device: 'inverter_1', metrics: [...metrics, ...control.metrics], settings: [...settings, ...control.settings] });
 * ctx.topics.publish({ device: 'inverter_1', values: { ...readings, ...control.info } });
 */
export function batteryControl(options: BatteryControlOptions): BatteryControl {
  const { limits, now } = options;
  const problem = limitsProblem(limits);
  if (problem) throw new Error(`battery control: ${problem}`);
  const maxPower = Math.max(limits.maxChargeW, limits.maxDischargeW);
  const fallback: BatteryCommand = { mode: 'normal', powerW: maxPower, targetSoc: 100 };
  // Power and target only: a forced mode is never restored (see `initial`).
  const initial = { ...fallback, ...options.initial, mode: 'normal' as const };
  const fits = initial.powerW <= maxPower && commandProblem(limits, { ...initial, powerW: 0 }) === null;
  let confirmed: BatteryCommand = fits ? initial : fallback;
  /** The lease's end of the confirmed command; null in normal. */
  let leaseEnd: number | null = null;

  const current = (): BatteryCommand =>
    leaseEnd !== null && now() >= leaseEnd ? { ...confirmed, mode: 'normal' } : { ...confirmed };

  const run = async (next: BatteryCommand, signal: AbortSignal, always: boolean) => {
    if (always || next.mode === 'charge' || next.mode === 'discharge') {
      const refused = commandProblem(limits, next);
      if (refused) throw new Error(refused);
      const until = next.mode === 'normal' ? null : now() + BATTERY_LEASE_MS;
      await options.apply({ command: next, until, signal });
      leaseEnd = until;
    }
    confirmed = next;
    await options.store?.set(BATTERY_COMMAND_KEY, next);
  };

  const T = BATTERY_CONTROL_TOPICS;
  // A mode write always applies; a power or target write only while charging or discharging.
  const settings = controlSettings(limits, maxPower, confirmed, (change, signal) =>
    run({ ...current(), ...change }, signal, change.mode !== undefined),
  );
  const infoValues = {
    [T.capacity]: limits.capacityKwh,
    [T.maxChargePower]: limits.maxChargeW,
    [T.maxDischargePower]: limits.maxDischargeW,
    [T.minSoc]: limits.minSoc,
    [T.lease]: options.boundedOnDevice ? BATTERY_LEASE_MS / 1000 : 0,
  };
  return {
    metrics: INFO_METRICS.map((m) => ({ ...m })),
    settings,
    info: infoValues,
    current,
    until: () => (current().mode === 'normal' ? null : leaseEnd),
    values: () => {
      const c = current();
      return { ...infoValues, [T.mode]: LABELS[c.mode], [T.power]: c.powerW, [T.targetSoc]: c.targetSoc };
    },
    startClean: async ({ site, device, signal }) => {
      const found = options.read ? await options.read({ signal }) : null;
      // A command of this run that came before the driver's first poll is what the device
      // shows then: no leftover of an earlier run, so it stays.
      if (found !== 'normal' && found !== current().mode)
        await site.write({ topic: `${device}/${T.mode}`, value: 'normal' });
      return found;
    },
    stopClean: async ({ site, device }) => {
      if (current().mode === 'normal') return false;
      await site.write({ topic: `${device}/${T.mode}`, value: 'normal' });
      return true;
    },
  };
}

/** The three settings, each write handed to `change` as the part of the command it changes. */
function controlSettings(
  limits: BatteryLimits,
  maxPower: number,
  initial: BatteryCommand,
  change: (part: Partial<BatteryCommand>, signal: AbortSignal) => Promise<void>,
): SettingDeclaration[] {
  const T = BATTERY_CONTROL_TOPICS;
  const modes = BATTERY_MODES.filter((m) => limits.modes.includes(m));
  const modeOptions: Array<SettingOption<string>> = modes.map((m) => ({ value: m, label: LABELS[m] }));
  return [
    {
      name: T.mode,
      displayName: 'Battery control mode',
      options: modeOptions,
      initial: LABELS.normal,
      // The power and target written together with the mode make one command: one `apply`.
      write: ({ value, signal, together }) => change({ mode: value as BatteryMode, ...commandPart(together) }, signal),
    },
    {
      name: T.power,
      displayName: 'Battery control power',
      unit: 'W',
      min: 0,
      max: maxPower,
      step: 1,
      initial: initial.powerW,
      write: ({ value, signal }) => change({ powerW: value }, signal),
    },
    {
      name: T.targetSoc,
      displayName: 'Battery control target SOC',
      unit: '%',
      deviceClass: null,
      // Whole percent from the minimum up (a min SOC of 10.5 allows 11..100).
      min: Math.ceil(limits.minSoc),
      max: 100,
      step: 1,
      initial: initial.targetSoc,
      write: ({ value, signal }) => change({ targetSoc: value }, signal),
    },
  ];
}

/** The power and target a mode write carries (`together`); a value of another type is left out. */
function commandPart(together: SettingsTogether | undefined): Partial<BatteryCommand> {
  const power = together?.[BATTERY_CONTROL_TOPICS.power];
  const target = together?.[BATTERY_CONTROL_TOPICS.targetSoc];
  return {
    ...(typeof power === 'number' ? { powerW: power } : {}),
    ...(typeof target === 'number' ? { targetSoc: target } : {}),
  };
}

const info = (name: string, displayName: string, unit: string): MetricDeclaration => ({
  name,
  displayName,
  unit,
  group: 'Info',
  recorded: false,
  deviceClass: null,
  stateClass: null,
});

/** The Info rows: the battery's limits and the lease a forced command carries on the device. */
const INFO_METRICS: MetricDeclaration[] = [
  info(BATTERY_CONTROL_TOPICS.capacity, 'Battery capacity', 'kWh'),
  info(BATTERY_CONTROL_TOPICS.maxChargePower, 'Battery max charge power', 'W'),
  info(BATTERY_CONTROL_TOPICS.maxDischargePower, 'Battery max discharge power', 'W'),
  info(BATTERY_CONTROL_TOPICS.minSoc, 'Battery minimum SOC', '%'),
  info(BATTERY_CONTROL_TOPICS.lease, 'Battery control lease (0: not bounded on the device)', 's'),
];
