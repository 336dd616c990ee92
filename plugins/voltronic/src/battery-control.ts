/*
 * Battery control on a Voltronic / Axpert (PI30) through its priorities: output source
 * priority (POP) decides whether the battery feeds the load, charger source priority (PCP)
 * whether the utility charges it, and the max utility charging current (MUCHGC) how fast.
 *
 * A PI30 device has no timer, so nothing on it ends a forced command by itself (the README's
 * "When Heliograph stops"): the capability says `boundedOnDevice: false`. What bounds one is
 * the driver, while it runs: it ends a command whose lease ran out at its next poll (a hung
 * planner, a command set by hand), ends grid charging at the target SOC, and writes Normal at
 * its stop and whatever forced it finds at its start. Left alone, the device's own charger
 * ends a charge at full (bulk, then float), at no more than the utility current set.
 *
 * The inverter keeps these settings in its EEPROM: the driver reads QPIRI before it writes and
 * sends only a setting that differs, so renewing a command sends nothing.
 */
import {
  batteryControl,
  BATTERY_CONTROL_TOPICS,
  DeviceRefusedError,
  serialTasks,
  type BatteryCommand,
  type BatteryConfig,
  type BatteryControl,
  type BatteryMode,
  type PluginStore,
  type SiteApi,
} from '@heliograph/plugins-sdk';
import type { Pi30Client } from './client.js';
import { PI30_CHARGER, type ChargerFamily } from './models.js';
import { qpiriSettings, type QpiriSettings } from './qpigs.js';

/** Utility charging currents until the device's own list (QMUCHGCR) is read. */
const DEFAULT_UTILITY_CURRENTS = [2, 10, 20, 30, 40, 50, 60];
/** Output source priorities (POPnn), the same on every model. */
const OUTPUT = { utilityFirst: 0, sbu: 2 } as const;
const NORMAL_LABEL = 'Normal';

/**
 * The largest utility current whose power (at `voltage`) stays within `powerW`; the smallest
 * the device offers when even that is more.
 *
 * @example
 * utilityCurrent(1500, 52, [2, 10, 20, 30, 40]); // 20
 */
export function utilityCurrent(powerW: number, voltage: number, currents: readonly number[]): number {
  const sorted = [...currents].sort((a, b) => a - b);
  const fitting = sorted.filter((a) => a * voltage <= powerW);
  return fitting.at(-1) ?? sorted[0]!;
}

/**
 * What the device does by its priorities: `normal` (SBU, only solar), `hold` (utility first,
 * only solar), `charge` (utility first, the utility charging), or null for any other
 * combination (the owner's own, which battery control does not know).
 *
 * @example
 * modeOf({ outputPriority: 0, chargerPriority: 2 }, PI30_CHARGER); // 'charge'
 */
export function modeOf(
  settings: Pick<QpiriSettings, 'outputPriority' | 'chargerPriority'>,
  family: ChargerFamily,
): BatteryMode | null {
  const { outputPriority: output, chargerPriority: charger } = settings;
  if (charger === family.onlySolar)
    return output === OUTPUT.sbu ? 'normal' : output === OUTPUT.utilityFirst ? 'hold' : null;
  return family.utilityCharging.includes(charger) && output === OUTPUT.utilityFirst ? 'charge' : null;
}

export interface VoltronicBatteryControlOptions {
  client: Pi30Client;
  battery: BatteryConfig;
  device: string;
  site: Pick<SiteApi, 'write'>;
  now: () => number;
  log: (message: string) => void;
  /** Keeps the power and target across restarts (never the mode). */
  store: PluginStore;
  initial: BatteryCommand | undefined;
}

/** A writer of one setting command (`POP00`), resolving on `(ACK`. */
type Send = (setting: string) => Promise<void>;

/** Battery control on one PI30 inverter: the capability, and what the driver's poll and stop call. */
export class VoltronicBatteryControl {
  readonly control: BatteryControl;
  private family: ChargerFamily = PI30_CHARGER;
  private currents: number[] | null = null;
  private last = { soc: NaN, voltage: 48 };
  /** Whether the charge in force has reached its target (and grid charging was ended). */
  private reached = false;
  /** The current chosen for a charge power, kept while the power stays (the voltage moves). */
  private chargeAmps: { powerW: number; amps: number } | null = null;
  /** Charger priorities the device refused (`(NAK`) where another one lets the utility charge. */
  private readonly refused = new Set<number>();
  /**
   * When the forced settings on the device are to end: the lease of the command in force, set
   * before the first forced write; null once the normal priorities were written.
   */
  private forcedUntil: number | null = null;
  /** Whether the start's reconcile is done. */
  private cleaned = false;
  /** One change of the device's settings at a time: a command, a lease's end, a target reached. */
  private readonly serially = serialTasks();

  constructor(private readonly options: VoltronicBatteryControlOptions) {
    const { client } = options;
    this.control = batteryControl({
      limits: { ...options.battery, modes: ['normal', 'hold', 'charge'] },
      boundedOnDevice: false,
      now: options.now,
      store: options.store,
      initial: options.initial,
      read: async ({ signal }) => modeOf(qpiriSettings(await client.ask('QPIRI', signal)), this.family),
      apply: (args) => this.serially(() => this.apply(args)),
    });
  }

  /** The model's charger priorities, once it is known (QGMN). */
  setFamily(family: ChargerFamily): void {
    this.family = family;
  }

  /**
   * The start's reconcile, in each poll until it succeeded once: a forced command found on
   * the device is ended (audited).
   */
  async startClean(signal: AbortSignal): Promise<void> {
    if (this.cleaned) return;
    const { site, device, log } = this.options;
    const found = await this.control.startClean({ site, device, signal });
    this.cleaned = true;
    if (found !== 'normal')
      log(`${found ? `${found} in force` : 'priorities battery control does not know'} at the start: set to Normal`);
  }

  /**
   * After each poll: ends a command whose lease ran out (as a device's timer would: not a
   * write through the write path, so not in the audit; the log says it), and grid charging at
   * the target.
   */
  async afterPoll({ soc, voltage, signal }: { soc: number; voltage: number; signal: AbortSignal }): Promise<void> {
    const { client, now, log } = this.options;
    this.last = { soc, voltage: voltage > 0 ? voltage : this.last.voltage };
    await this.serially(async () => {
      if (this.forcedUntil !== null && now() >= this.forcedUntil) {
        // Nobody renewed it: a planner that hung or stopped, a command set by hand.
        const end = new Date(this.forcedUntil).toISOString();
        await this.settle(qpiriSettings(await client.ask('QPIRI', signal)), OUTPUT.sbu, (s) => client.set(s, signal));
        this.forcedUntil = null;
        log(`the lease of the forced command ran out at ${end}: the normal priorities are back`);
        return;
      }
      const command = this.control.current();
      if (command.mode !== 'charge' || this.reached || soc < command.targetSoc) return;
      await client.set(`PCP0${this.family.onlySolar}`, signal);
      this.reached = true;
      log(`battery at ${soc} %, the charge target ${command.targetSoc} %: grid charging ended, holding`);
    });
  }

  /** At the stop, before the link closes: writes Normal when anything forced is in force. */
  async stopClean(): Promise<void> {
    const { site, device } = this.options;
    const wrote = await this.control.stopClean({ site, device });
    // A lease that ran out since the last poll: the device is still forced.
    if (!wrote && this.forcedUntil !== null)
      await site.write({ topic: `${device}/${BATTERY_CONTROL_TOPICS.mode}`, value: NORMAL_LABEL });
  }

  /** Sends what the command asks of the device, each setting only if it differs from QPIRI's. */
  private async apply({
    command,
    until,
    signal,
  }: {
    command: BatteryCommand;
    until: number | null;
    signal: AbortSignal;
  }): Promise<void> {
    const { client } = this.options;
    const previous = this.control.current();
    const keepsTarget = this.reached && previous.mode === 'charge' && previous.targetSoc === command.targetSoc;
    this.reached = command.mode === 'charge' && (keepsTarget || this.last.soc >= command.targetSoc);
    const held = qpiriSettings(await client.ask('QPIRI', signal));
    // Before each forced write: even a command written halfway (no answer) ends at its
    // lease. A refusal (`(NAK`) changed nothing.
    const send: Send = async (setting) => {
      const before = this.forcedUntil;
      if (command.mode !== 'normal') this.forcedUntil = until;
      try {
        await client.set(setting, signal);
      } catch (err) {
        if (err instanceof DeviceRefusedError) this.forcedUntil = before;
        throw err;
      }
    };
    if (command.mode === 'charge' && !this.reached) {
      const amps = await this.chargeCurrent(command.powerW, signal);
      if (held.maxUtilityChargeCurrent !== amps) await send(this.family.utilityCurrentCommand(amps));
      if (held.outputPriority !== OUTPUT.utilityFirst) await send(`POP0${OUTPUT.utilityFirst}`);
      await this.letUtilityCharge(held.chargerPriority, send);
    } else await this.settle(held, command.mode === 'normal' ? OUTPUT.sbu : OUTPUT.utilityFirst, send);
    this.forcedUntil = command.mode === 'normal' ? null : until;
  }

  /** The utility current for a charge power: chosen once per power, from the device's list. */
  private async chargeCurrent(powerW: number, signal: AbortSignal): Promise<number> {
    if (this.chargeAmps?.powerW !== powerW) {
      if (!this.currents) {
        const reply = await this.options.client.ask('QMUCHGCR', signal);
        const listed = reply.replace(/^\(/, '').trim().split(/\s+/).map(Number);
        this.currents = reply !== '(NAK' && listed.every(Number.isInteger) ? listed : DEFAULT_UTILITY_CURRENTS;
      }
      const usable = this.currents.filter((a) => this.family.fits(a));
      const amps = utilityCurrent(powerW, this.last.voltage, usable.length > 0 ? usable : DEFAULT_UTILITY_CURRENTS);
      this.chargeAmps = { powerW, amps };
    }
    return this.chargeAmps.amps;
  }

  /** Ends grid charging (first), then sets the output priority, each only if it differs. */
  private async settle(held: QpiriSettings, output: number, send: Send): Promise<void> {
    if (held.chargerPriority !== this.family.onlySolar) await send(`PCP0${this.family.onlySolar}`);
    if (held.outputPriority !== output) await send(`POP0${output}`);
  }

  /**
   * Lets the utility charge, unless the charger priority in force already does: the model's
   * preferred priority first, the next where the device refuses it (remembered).
   */
  private async letUtilityCharge(charger: number, send: Send): Promise<void> {
    const { utilityCharging } = this.family;
    if (utilityCharging.includes(charger)) return;
    const candidates = utilityCharging.filter((c) => !this.refused.has(c));
    for (const [i, candidate] of candidates.entries()) {
      const setting = `PCP${String(candidate).padStart(2, '0')}`;
      try {
        await send(setting);
        for (const before of candidates.slice(0, i)) this.refused.add(before);
        return;
      } catch (err) {
        if (!(err instanceof DeviceRefusedError) || i === candidates.length - 1) throw err;
        this.options.log(`the device refused ${setting}: trying the next charger priority`);
      }
    }
  }
}
