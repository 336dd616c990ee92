/*
 * The demo's evening car (config `demoChargePoint`): the emulated charge point of
 * src/emulator, run in the plugin's own process against the plugin's own central system over
 * loopback (a listener of its own on 127.0.0.1, any free port), so that a fresh install shows
 * a charger and a car with no manual step. Its password is made at each start and never
 * leaves the process, so nothing else can connect as the demo charger. The car plugs in at
 * `demoCar.plugInAt` (site time) at 40 to 60 % and is unplugged at `demoCar.unplugAt`.
 */
import { randomBytes, randomInt } from 'node:crypto';
import type { PluginContext } from '@heliograph/plugins-sdk';
import type { CentralSystem } from './central-system.js';
import { chargerSchema, type ChargerConfig, type OcppConfig } from './config.js';
import { EmulatedChargePoint } from './emulator/charge-point.js';
import { DEADLINES, type OwnerSettings } from './owner-settings.js';

/** The demo charger's OCPP identity when the config gives it no entry. */
export const DEMO_CHARGE_POINT_ID = 'demo-car';

/** The demo charger's entry when `chargers` has none for it: a password for this run only. */
export function demoChargerConfig(): ChargerConfig {
  return chargerSchema.parse({ chargePointId: DEMO_CHARGE_POINT_ID, password: randomBytes(16).toString('hex') });
}

/**
 * What the demo charger's owner settings start as (a stored choice wins): planned, to 80 % by
 * the time the car leaves, so the planner plans it (in its dry-run it charges as `min+pv`).
 */
export function demoOwnerDefaults(config: OcppConfig): Partial<OwnerSettings> {
  const leaves = config.demoCar.unplugAt;
  return { mode: 'planned', planSoc: 80, planDeadline: DEADLINES.includes(leaves) ? leaves : '07:00' };
}

const minuteOfDay = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

export class DemoChargePoint {
  private readonly plugInAt: number;
  private readonly unplugAt: number;
  private readonly localTime: Intl.DateTimeFormat;
  /** A plug or unplug under way: the next check waits for it. */
  private moving = false;

  private constructor(
    private readonly ctx: PluginContext,
    readonly point: EmulatedChargePoint,
    config: OcppConfig,
  ) {
    this.plugInAt = minuteOfDay(config.demoCar.plugInAt);
    this.unplugAt = minuteOfDay(config.demoCar.unplugAt);
    this.localTime = localTimeFormat(ctx.site.timeZone);
  }

  /** Connects the emulated charge point to `central` over loopback; resolves once it is connected. */
  static async start(
    ctx: PluginContext,
    central: CentralSystem,
    charger: ChargerConfig,
    config: OcppConfig,
  ): Promise<DemoChargePoint> {
    const port = await central.listenLoopback();
    const point = new EmulatedChargePoint({
      url: `ws://127.0.0.1:${port}${config.path}/${encodeURIComponent(charger.chargePointId)}`,
      password: charger.password,
      defaultCurrentA: charger.maxCurrentA,
      phases: charger.phases,
      meterIntervalS: 10,
      car: { capacityKWh: config.demoCar.capacityKWh, soc: 50 },
      // The site's clock: a test's manual clock moves the car's evening too.
      now: () => ctx.now(),
    });
    await point.start();
    return new DemoChargePoint(ctx, point, config);
  }

  /** Whether the car is home at `now`: from the plug-in time to the unplug time, site time. */
  carHome(now: number): boolean {
    const parts = this.localTime.formatToParts(now);
    const part = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
    const minute = (part('hour') % 24) * 60 + part('minute');
    const day = 24 * 60;
    return (minute - this.plugInAt + day) % day < (this.unplugAt - this.plugInAt + day) % day;
  }

  /** On the plugin's tick: plugs the car in within its evening, out outside it. */
  check(): void {
    const { point } = this;
    if (this.moving || point.bootStatus !== 'Accepted') return;
    const home = this.carHome(this.ctx.now());
    if (home === point.plugged) return;
    this.moving = true;
    const move = home ? point.plugIn('DEMO-CAR', randomInt(40, 61)) : point.unplug();
    void move
      .catch((err: unknown) => this.ctx.log.warn(`demo car: ${home ? 'plug-in' : 'unplug'} failed: ${String(err)}`))
      .finally(() => (this.moving = false));
  }

  async close(): Promise<void> {
    await this.point.close();
  }
}

/** Hours and minutes in the site's zone (UTC when the zone is not one Intl knows). */
function localTimeFormat(timeZone: string): Intl.DateTimeFormat {
  const options: Intl.DateTimeFormatOptions = { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' };
  try {
    return new Intl.DateTimeFormat('en-GB', { ...options, timeZone });
  } catch {
    return new Intl.DateTimeFormat('en-GB', { ...options, timeZone: 'UTC' });
  }
}
