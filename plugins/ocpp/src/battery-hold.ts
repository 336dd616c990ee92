/*
 * The home battery kept out of the car (issue 42): while a charger's car draws and its owner
 * has not allowed battery-to-car, the rules' decision says `holdHomeBattery`. Unless an
 * active planner drives the battery (it holds it itself while the car charges, and one
 * writer at a time), this holds each battery that offers battery control with `Hold`,
 * written to the device's own `battery_control_mode` through the core's write path:
 * validated, audited (via ocpp), and a lease on the device (the SDK's 30 minutes, written
 * again every 10 while needed), so no stop or crash leaves a battery held for longer. Once
 * no car draws, or the owner allows battery-to-car, it writes Normal back. A person who sets
 * the battery otherwise while it is held wins until the car stops drawing.
 */
import {
  BATTERY_LEASE_MS,
  batteryModeLabel,
  batteryModeOf,
  type Disposer,
  type PluginContext,
  type TopicDefinition,
} from '@heliograph/plugins-sdk';

const MODE = 'battery_control_mode';
/** A hold is written again after a third of its lease, as the planner renews its commands. */
const RENEW_MS = BATTERY_LEASE_MS / 3;
/** While a car draws and a battery is not held (the planner drives it, a refusal), this often it looks again. */
const RECHECK_MS = 60_000;

export class HomeBatteryHold {
  /** The batteries this holds, each with when its Hold was last written (site clock). */
  private readonly held = new Map<string, number>();
  /** Batteries a person set otherwise while held: left alone until the car stops drawing. */
  private readonly overridden = new Set<string>();
  private need = false;
  private checkedAt = -Infinity;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  /** Why no battery is held although a car draws, for the chargers' `reason`; null otherwise. */
  private notHeld: string | null = null;
  private readonly watch: Disposer;

  constructor(private readonly ctx: PluginContext) {
    const self = `plugin:${ctx.instanceId}`;
    this.watch = ctx.site.onWrite({
      filter: `*/${MODE}`,
      handler: (write) => {
        const device = write.topic.slice(0, -MODE.length - 1);
        if (write.result !== 'ok' || write.who === self || !this.held.has(device)) return;
        this.held.delete(device);
        // The battery's driver ending a command (its restart) is no one's choice: held again at
        // the next look. A person's (or another integration's) command stands.
        if (write.byDriver === true) this.checkedAt = -Infinity;
        else {
          this.overridden.add(device);
          this.notHeld = `${device} set to ${write.value} by ${write.who}: left so until the car stops drawing`;
        }
        ctx.log.info(`${device} was set to ${write.value} by ${write.who}: it is no longer held for the car`);
      },
    });
  }

  /** What the chargers need now: called on each of their changes, cheap when nothing is due. */
  update(need: boolean): void {
    if (this.stopped) return;
    const every = this.held.size > 0 && this.notHeld === null ? RENEW_MS : RECHECK_MS;
    if (need === this.need && !(need && this.ctx.now() - this.checkedAt >= every)) return;
    this.need = need;
    this.checkedAt = this.ctx.now();
    this.kick();
  }

  /** The battery's part of a charger's `reason` while its car draws. */
  note(): string {
    if (this.held.size > 0) return `home battery on Hold while the car charges (${[...this.held.keys()].join(', ')})`;
    return this.notHeld ?? 'the home battery may feed the car';
  }

  /** Before the plugin's connections close: a battery still held goes back to Normal. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.watch();
    while (this.running) await this.running;
    await this.release();
  }

  private kick(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = (this.need ? this.hold() : this.release())
      .catch((err: unknown) => this.ctx.log.warn(`home battery hold: ${String(err)}`))
      .finally(() => {
        this.running = null;
        if (this.again && !this.stopped) {
          this.again = false;
          this.kick();
        }
      });
  }

  private async hold(): Promise<void> {
    const { batteries, planner } = await this.survey();
    if (planner) {
      // One writer at a time: an active planner commands the battery (and holds it for a
      // car it plans).
      this.notHeld = `${planner} is active: the home battery is its to command`;
      this.held.clear();
      return;
    }
    if (batteries.length === 0) {
      this.notHeld = 'no home battery offers battery control to hold';
      return;
    }
    const values = await this.ctx.site.values({ filter: batteries.map((d) => `${d}/${MODE}`) });
    const now = this.ctx.now();
    const problems: string[] = [];
    const refused: string[] = [];
    for (const device of batteries) {
      const at = this.held.get(device);
      const shown = values[`${device}/${MODE}`];
      const mode = batteryModeOf(shown);
      // Ours is written again when due; another's command (Charge, a person's Discharge) stands.
      if (this.overridden.has(device)) continue;
      if (at === undefined && mode !== 'normal') {
        problems.push(`${device} is in ${String(shown)}, left so`);
        continue;
      }
      if (at !== undefined && now - at < RENEW_MS && mode === 'hold') continue;
      try {
        await this.ctx.site.write({ topic: `${device}/${MODE}`, value: 'hold' });
        this.held.set(device, now);
      } catch (err) {
        this.held.delete(device);
        refused.push(`${device} could not be held: ${(err as Error).message}`);
      }
    }
    // The next look is a renewal's interval after these writes, not after the last look began.
    this.checkedAt = this.ctx.now();
    if (refused.length > 0) this.ctx.log.warn(`home battery hold for the car: ${refused.join('; ')}`);
    const why = [...problems, ...refused];
    if (why.length > 0 || this.held.size > 0) this.notHeld = why.length > 0 ? why.join('; ') : null;
  }

  private async release(): Promise<void> {
    this.overridden.clear();
    this.notHeld = null;
    if (this.held.size === 0) return;
    const devices = [...this.held.keys()];
    this.held.clear();
    const values = await this.ctx.site.values({ filter: devices.map((d) => `${d}/${MODE}`) });
    for (const device of devices) {
      // Back to Normal only what is still this hold (not a lease that ran out, not a person's choice).
      if (batteryModeOf(values[`${device}/${MODE}`]) !== 'hold') continue;
      try {
        await this.ctx.site.write({ topic: `${device}/${MODE}`, value: 'normal' });
      } catch (err) {
        this.ctx.log.warn(
          `${device}: back to Normal after the car failed: ${(err as Error).message}; its lease ends the Hold`,
        );
      }
    }
  }

  /** The batteries offering Hold, and an active planner (a device whose `mode` is `active`), if any. */
  private async survey(): Promise<{ batteries: string[]; planner: string | null }> {
    const defs = await this.ctx.site.definitions();
    const offers = (d: TopicDefinition, ...wanted: string[]) => {
      const options = d.writable !== null && 'options' in d.writable ? d.writable.options : [];
      return wanted.every((o) => options.includes(o));
    };
    const batteries = defs
      .filter((d) => d.topic.endsWith(`/${MODE}`) && offers(d, batteryModeLabel('hold')))
      .map((d) => d.deviceId);
    const planners = defs.filter((d) => d.topic === `${d.deviceId}/mode` && offers(d, 'dry-run', 'active'));
    if (planners.length === 0) return { batteries, planner: null };
    const values = await this.ctx.site.values({ filter: planners.map((d) => d.topic) });
    return { batteries, planner: planners.find((d) => values[d.topic] === 'active')?.deviceId ?? null };
  }
}
