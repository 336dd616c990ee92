/*
 * One charger as a Heliograph device (`charger_N`): its topics, the owner's settings, and the
 * loop that runs the charging rules (rules.ts) on the site's power and the charger's meter
 * values and sends what they decide as a charging profile with a lease.
 *
 * Every command to the charger is a setting of the device written through the core's write
 * path (`ctx.site.write`), so each one is validated, audited (`via` ocpp) and refused in
 * words like any other write: `current_limit` (SetChargingProfile), `clear_profiles`
 * (ClearChargingProfile), `availability` (ChangeAvailability), `transaction`
 * (RemoteStart/StopTransaction) and `trigger_message` (TriggerMessage).
 */
import type { Device, MetricValue, PluginContext } from '@heliograph/plugins-sdk';
import type { ChargerConfig, OcppConfig } from './config.js';
import { ChargerLink } from './charger-link.js';
import { chargerDeclaration } from './declaration.js';
import { loadSettings, planText, PlannedPower, type OwnerSettings } from './owner-settings.js';
import { decide, INITIAL_RULE_STATE, type Decision, type RuleState } from './charging-rules.js';

const VOLTAGE = 230;
/** After the charger refused a profile, the next try waits this long (it charges by its own default meanwhile). */
const REFUSED_RETRY_MS = 60_000;
/** Publishes of one charger at most this often (real time): a burst of its messages is one update. */
const PUBLISH_EVERY_MS = 200;

/** What the charger was last told, and until when it holds. */
interface Applied {
  currentA: number;
  phases: 1 | 3;
  at: number;
  until: number;
}

/** What the plugin gives a charger beyond its config. */
export interface ChargerOptions {
  /** Owner settings to start from instead of the usual defaults (the demo's charger); stored ones win. */
  defaults?: Partial<OwnerSettings>;
  /** Called after each look at the inputs (the plugin's home battery hold follows the chargers). */
  onChange?: () => void;
  /** The home battery's part of `reason` while this charger's car draws with the battery kept out. */
  batteryNote?: () => string;
}

/** The site's power as the rules read it (total/* topics), kept from the subscription. */
interface SitePower {
  gridPowerW: number | null;
  /**
   * The charger's power when that grid power came: the rules take the two as one pair, so a
   * meter value that came after the grid's is not counted twice (the current would hunt).
   */
  chargerPowerW: number;
  batteryPowerW: number | null;
  batterySoc: number | null;
}

export class ChargerDevice {
  readonly link: ChargerLink;
  private settings!: OwnerSettings;
  private readonly planned = new PlannedPower();
  private ruleState: RuleState = INITIAL_RULE_STATE;
  private decision: Decision | null = null;
  private applied: Applied | null = null;
  private refusedAt: number | null = null;
  private commandProblem: string | null = null;
  private lastDecideAt = -Infinity;
  private sending = false;
  /** Start clean runs: nothing is sent until Heliograph's old profiles are cleared. */
  private cleaning = false;
  private resend = false;
  /** The phases the next `current_limit` write sends (what the rules chose). */
  private nextPhases: 1 | 3;
  private readonly site: SitePower = { gridPowerW: null, chargerPowerW: 0, batteryPowerW: null, batterySoc: null };
  private readonly leaseMs: number;
  private publishTimer: NodeJS.Timeout | null = null;
  private lastPublishAt = 0;
  /** Set by stop(): the device's topics are undeclared, nothing is published or decided after it. */
  private stopped = false;

  constructor(
    private readonly ctx: PluginContext,
    readonly device: Device,
    readonly charger: ChargerConfig,
    private readonly config: OcppConfig,
    private readonly options: ChargerOptions = {},
  ) {
    this.leaseMs = config.leaseMinutes * 60_000;
    this.nextPhases = charger.phases;
    this.link = new ChargerLink(charger, {
      now: () => ctx.now(),
      heartbeatIntervalS: config.heartbeatIntervalS,
      events: {
        changed: () => this.changed(),
        metered: () => this.changed(),
        booted: () => {
          if (!this.stopped) void this.startClean();
        },
      },
    });
  }

  async start(): Promise<void> {
    this.settings = await loadSettings(this.ctx.store, this.device.id, this.charger, this.options.defaults);
    this.ctx.topics.declare(chargerDeclaration(this));
    this.publish();
  }

  // What declaration.ts's handlers call.

  get owner(): Readonly<OwnerSettings> {
    return this.settings;
  }

  get maxPowerW(): number {
    return this.charger.maxCurrentA * this.charger.phases * VOLTAGE;
  }

  async changeSettings(change: Partial<OwnerSettings>): Promise<void> {
    this.settings = { ...this.settings, ...change };
    if (this.settings.minCurrentA > this.settings.maxCurrentA) this.settings.minCurrentA = this.settings.maxCurrentA;
    await this.ctx.store.set(`settings:${this.device.id}`, this.settings);
    this.lastDecideAt = -Infinity;
    queueMicrotask(() => this.changed());
  }

  setPlannedPower(powerW: number): void {
    this.planned.set(powerW, this.ctx.now());
    this.lastDecideAt = -Infinity;
    queueMicrotask(() => this.changed());
  }

  /** The `current_limit` write: a charging profile with the lease. */
  async sendLimit(currentA: number): Promise<void> {
    const phases = this.nextPhases;
    const { until } = await this.link.setLimit({ currentA, phases, leaseMs: this.leaseMs });
    this.applied = { currentA, phases, at: this.ctx.now(), until };
    this.refusedAt = null;
    this.commandProblem = null;
    if (this.stopped) return;
    this.ctx.topics.publish({
      device: this.device.id,
      values: { current_limit: currentA, active_phases: phases, lease_end: new Date(until).toISOString() },
    });
    this.publish();
  }

  // The site, the clock and the charger's messages drive the loop.

  /** Site values as the subscription hands them (total/grid_power, total/battery_power, total/battery_state_of_charge). */
  siteValues(values: Record<string, MetricValue>): void {
    const num = (v: MetricValue | undefined, old: number | null) =>
      v === undefined ? old : typeof v === 'number' ? v : null;
    this.site.gridPowerW = num(values['total/grid_power'], this.site.gridPowerW);
    if (values['total/grid_power'] !== undefined) this.site.chargerPowerW = this.link.state.meter.powerW ?? 0;
    this.site.batteryPowerW = num(values['total/battery_power'], this.site.batteryPowerW);
    this.site.batterySoc = num(values['total/battery_state_of_charge'], this.site.batterySoc);
    this.changed();
  }

  /** Runs on every input and on the plugin's tick: decides when the interval has passed, and checks silence. */
  changed(): void {
    if (this.stopped) return;
    this.checkSilence();
    const now = this.ctx.now();
    if (now - this.lastDecideAt >= this.config.decideIntervalMs) {
      this.lastDecideAt = now;
      this.runRules(now);
    }
    this.publish();
    this.options.onChange?.();
  }

  /**
   * Whether the home battery is to be kept out of this charger's car now: the rules say so
   * (current offered, battery-to-car not allowed) and the car draws.
   */
  needsBatteryHold(): boolean {
    if (!this.decision?.holdHomeBattery || !this.link.carPlugged) return false;
    return (this.link.state.meter.powerW ?? 0) > 0 || this.link.state.status === 'Charging';
  }

  private checkSilence(): void {
    const { state } = this.link;
    const limit = 3 * this.config.heartbeatIntervalS * 1000;
    if (state.online && state.lastSeen !== null && this.ctx.now() - state.lastSeen > limit)
      this.link.silent(
        `no message from the charger for ${Math.round((this.ctx.now() - state.lastSeen) / 1000)} s (3 heartbeat intervals); it charges by its own default once its profile ends`,
      );
  }

  private runRules(now: number): void {
    const s = this.settings;
    const canSwitch = this.charger.canSwitchPhases && s.phases === 'auto';
    const phases: 1 | 3 = s.phases === '1' ? 1 : s.phases === '3' ? 3 : (this.applied?.phases ?? this.charger.phases);
    this.decision = decide(
      {
        now,
        mode: s.mode,
        limits: {
          minCurrentA: s.minCurrentA,
          maxCurrentA: s.maxCurrentA,
          phases,
          canSwitchPhases: canSwitch,
          voltage: VOLTAGE,
        },
        site: {
          // Unknown grid power is no surplus (the rules treat NaN so), never a surplus of 0 W.
          gridPowerW: this.site.gridPowerW ?? Number.NaN,
          batteryPowerW: this.site.batteryPowerW ?? 0,
          chargerPowerW: this.site.chargerPowerW,
          ...(this.site.batterySoc === null ? {} : { batterySoc: this.site.batterySoc }),
        },
        connected: this.link.carPlugged,
        allowBatteryToCar: s.allowBatteryToCar,
        plannedPowerW: this.planned.current(now),
      },
      this.ruleState,
    );
    this.ruleState = this.decision.state;
    this.maybeSend(now);
  }

  /** Sends the decision when it differs from what holds, or the lease is a third gone (renewal). */
  private maybeSend(now: number): void {
    const d = this.decision;
    if (!d || this.cleaning || !this.link.state.booted || !this.link.state.online || this.link.state.offlineReason)
      return;
    if (this.refusedAt !== null && now - this.refusedAt < REFUSED_RETRY_MS) return;
    const a = this.applied;
    const renewDue = a !== null && now - a.at >= this.leaseMs / 3;
    if (a && a.currentA === d.currentA && a.phases === d.phases && !renewDue && now < a.until) return;
    void this.send(d.currentA, d.phases);
  }

  /** Writes `current_limit` through the core (one command at a time; the newest decision wins). */
  private async send(currentA: number, phases: 1 | 3): Promise<void> {
    if (this.sending) {
      this.resend = true;
      return;
    }
    this.sending = true;
    this.nextPhases = phases;
    try {
      await this.ctx.site.write({ topic: `${this.device.id}/current_limit`, value: currentA });
    } catch (err) {
      this.refusedAt = this.ctx.now();
      // A refused phase switch did not happen: the rules' state (phases, switch time, timers)
      // would say it did, so they start afresh from what the charger has.
      if (phases !== (this.applied?.phases ?? this.charger.phases)) this.ruleState = INITIAL_RULE_STATE;
      this.commandProblem = `the charger did not take the charging profile (${(err as Error).message}); it charges by its own default`;
      this.ctx.log.warn(this.commandProblem);
      // What Heliograph set before must not hold the charger instead: back to its own default
      // (after a stop the stop has cleared it).
      if (this.applied && !this.stopped) await this.clearAfterRefusal();
    } finally {
      this.sending = false;
    }
    if (this.resend) {
      this.resend = false;
      this.lastDecideAt = -Infinity;
      this.changed();
    }
    this.publish();
  }

  private async clearAfterRefusal(): Promise<void> {
    try {
      await this.ctx.site.write({ topic: `${this.device.id}/clear_profiles`, value: 'Clear' });
      this.applied = null;
    } catch (err) {
      this.ctx.log.warn(`clearing Heliograph's profiles after the refusal failed: ${(err as Error).message}`);
    }
  }

  /**
   * Start clean after a (re)connect: Heliograph's profiles from a previous run are cleared,
   * the charger is asked for its status, and the rules decide afresh.
   */
  private async startClean(): Promise<void> {
    this.cleaning = true;
    this.refusedAt = null;
    const write = async (name: string, value: string) => {
      try {
        await this.ctx.site.write({ topic: `${this.device.id}/${name}`, value });
      } catch (err) {
        this.ctx.log.warn(`${name} after the charger's boot: ${(err as Error).message}`);
      }
    };
    // A profile being sent now would be cleared after it: wait for it first.
    while (this.sending) await new Promise((resolve) => setTimeout(resolve, 20));
    await write('clear_profiles', 'Clear');
    this.applied = null;
    this.cleaning = false;
    await write('trigger_message', 'StatusNotification');
    this.lastDecideAt = -Infinity;
    this.changed();
  }

  /** Why the charger does what it does now, in words. */
  reason(): string {
    const { state } = this.link;
    if (!state.online) return state.offlineReason ?? 'the charger has not connected yet';
    if (state.offlineReason) return state.offlineReason;
    if (!state.booted) return 'waiting for the charger’s BootNotification';
    if (this.commandProblem) return this.commandProblem;
    const reason = this.decision?.reason ?? 'deciding';
    const battery = this.options.batteryNote && this.needsBatteryHold() ? this.options.batteryNote() : null;
    return battery ? `${reason}; ${battery}` : reason;
  }

  /**
   * Publishes the device's values, at most every PUBLISH_EVERY_MS (the last call's state goes
   * out at the end of the wait): a charger's burst of messages is one update.
   */
  publish(): void {
    if (this.publishTimer || this.stopped) return;
    const wait = this.lastPublishAt + PUBLISH_EVERY_MS - Date.now();
    if (wait <= 0) return this.publishNow();
    this.publishTimer = setTimeout(() => {
      this.publishTimer = null;
      this.publishNow();
    }, wait);
  }

  private publishNow(): void {
    if (this.stopped) return;
    this.lastPublishAt = Date.now();
    const { state } = this.link;
    const meter = state.meter;
    const currents = meter.currentA ?? [undefined, undefined, undefined];
    const online = state.online && state.offlineReason === null;
    this.ctx.topics.publish({
      device: this.device.id,
      values: {
        status: online ? (state.status ?? 'Unknown') : 'Offline',
        online,
        car_connected: this.link.carPlugged,
        power: online ? (meter.powerW ?? null) : null,
        session_energy: state.sessionEnergyWh === null ? null : state.sessionEnergyWh / 1000,
        meter_energy: meter.energyWh === undefined ? null : meter.energyWh / 1000,
        current_l1: currents[0] ?? null,
        current_l2: currents[1] ?? null,
        current_l3: currents[2] ?? null,
        vehicle_soc: meter.soc ?? null,
        active_phases: this.applied?.phases ?? this.charger.phases,
        reason: this.reason(),
        plan: planText(this.settings),
        mode: this.settings.mode,
        ...(this.applied
          ? { current_limit: this.applied.currentA, lease_end: new Date(this.applied.until).toISOString() }
          : {}),
      },
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.publishTimer) clearTimeout(this.publishTimer);
    this.publishTimer = null;
    await this.link.detach();
  }
}
