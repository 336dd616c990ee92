/**
 * The car the plan charges, read of the site: the chargers in mode `planned`, the first one's
 * car that needs energy, and for the others why they are not planned.
 */
import type { MetricValue, PluginContext } from '@heliograph/plugins-sdk';
import type { PlannerConfig } from './config.js';
import { num } from './inputs.js';
import { LocalCalendar } from './load-forecast.js';
import type { CarRequest } from './plan.js';

/** Per-phase voltage the charger's currents are turned into power with (the OCPP plugin's). */
const CHARGER_VOLTAGE = 230;

/** The car the plan charges, and for the status why any other charger's car is not planned. */
export interface CarRead {
  car: CarRequest | null;
  /** Per charger in mode `planned` not planned: why, in words. */
  notes: string[];
  /** Chargers in mode `planned` whose car has reached its target: told 0 W, not left to their default. */
  done: string[];
  /**
   * Chargers in another mode (`now`, `min+pv`, `pv`) whose car draws now with the home battery
   * not allowed to feed it: the planner keeps the battery off the car for them too, since an
   * active planner is the battery's one controller (the ocpp plugin leaves it to the planner).
   */
  drawing: string[];
  /** Identifies what the plan was made for (not the energy charged meanwhile). */
  key: string;
}

/**
 * The chargers in charging mode `planned` (the configured ones, else every device with a
 * `planned_power` setting) and the first one's car that needs energy: its plan target as
 * energy at the charger, its deadline, its power limits. The need is `plan_energy` (kWh to add
 * to the car) less what the session has charged, over the efficiency; without it `plan_soc`
 * less the car's reported `vehicle_soc`, times `carCapacityKwh`.
 */
export async function readCar(ctx: PluginContext, config: PlannerConfig, now: number): Promise<CarRead> {
  const defs = await ctx.site.definitions();
  const planned = defs.filter((d) => d.topic.endsWith('/planned_power'));
  const devices = config.chargers ?? planned.map((d) => d.deviceId);
  const notes: string[] = [];
  const done: string[] = [];
  const drawing: string[] = [];
  let car: CarRequest | null = null;
  for (const device of devices) {
    const def = planned.find((d) => d.deviceId === device);
    if (!def) {
      notes.push(`${device} has no planned_power setting`);
      continue;
    }
    const v = await ctx.site.values({ filter: `${device}/*` });
    const mode = v[`${device}/mode`];
    if (mode === null || v[`${device}/online`] === false || v[`${device}/online`] === null) {
      notes.push(`${device} is unavailable: its car is not planned`);
      continue;
    }
    if (mode !== 'planned') {
      if ((num(v[`${device}/power`]) ?? 0) > 0 && v[`${device}/allow_battery_to_car`] !== true) drawing.push(device);
      continue;
    }
    if (v[`${device}/car_connected`] !== true) {
      notes.push(`${device}: no car plugged in`);
      continue;
    }
    const need = carNeed(v, device, config);
    if (need === null) {
      notes.push(`${device}: no plan target (plan_energy, or plan_soc with the car's SoC reported)`);
      continue;
    }
    if (need <= 0) {
      notes.push(`${device}: the plan target is reached`);
      done.push(device);
      continue;
    }
    const deadlineText = v[`${device}/plan_deadline`];
    const deadline = typeof deadlineText === 'string' ? nextLocalTime(now, deadlineText, ctx.site.timeZone) : null;
    if (deadline === null) {
      notes.push(`${device}: no plan deadline`);
      continue;
    }
    const phases = num(v[`${device}/active_phases`]) === 1 ? 1 : 3;
    const perAmp = phases * CHARGER_VOLTAGE;
    const rating = def.writable && 'max' in def.writable ? def.writable.max : Infinity;
    const maxW = Math.min(rating, (num(v[`${device}/max_current`]) ?? 16) * perAmp);
    const minW = Math.min(maxW, (num(v[`${device}/min_current`]) ?? 6) * perAmp);
    if (car) {
      notes.push(`${device}: not planned, one car at a time (${car.device} is)`);
      continue;
    }
    car = {
      device,
      needKwh: need,
      deadline,
      maxW,
      minW,
      allowBattery: v[`${device}/allow_battery_to_car`] === true,
      livePowerW: num(v[`${device}/power`]) ?? 0,
    };
  }
  const key = car
    ? `${car.device}:${car.deadline}:${car.maxW}:${car.minW}:${car.allowBattery}:${notes.join('|')}`
    : notes.join('|');
  return { car, notes, done, drawing, key };
}

/** The energy the car still needs, kWh at the charger; null without a target it can be told from. */
function carNeed(v: Record<string, MetricValue>, device: string, config: PlannerConfig): number | null {
  const eff = config.carEfficiency;
  const session = num(v[`${device}/session_energy`]) ?? 0;
  const energy = num(v[`${device}/plan_energy`]) ?? 0;
  if (energy > 0) return energy / eff - session;
  const target = num(v[`${device}/plan_soc`]) ?? 0;
  const soc = num(v[`${device}/vehicle_soc`]);
  if (target > 0 && soc !== null) return (((target - soc) / 100) * config.carCapacityKwh) / eff;
  return null;
}

/** The next moment after `now` when the local clock of `timeZone` shows `hh:mm`; null if not a time. */
export function nextLocalTime(now: number, hhmm: string, timeZone: string): number | null {
  const m = /^(\d{2}):(\d{2})$/.exec(hhmm);
  if (!m) return null;
  const want = Number(m[1]) * 60 + Number(m[2]);
  const calendar = new LocalCalendar(timeZone);
  const minuteStart = Math.floor(now / 60_000) * 60_000;
  const here = calendar.position(minuteStart).minute;
  let candidate = minuteStart + ((want - here + 1440) % 1440 || 1440) * 60_000;
  // Across a change of summer time the local clock moved: step to the wanted minute.
  for (let i = 0; i < 2; i++) {
    const off = calendar.position(candidate).minute - want;
    if (off === 0) break;
    candidate -= (((off + 720 + 1440) % 1440) - 720) * 60_000;
  }
  // In the hour a clock shows twice (back to winter time) a minute already passed comes round
  // again: 02:10 at 02:50 summer time is 20 minutes on, the day before the one found.
  const again = candidate - 24 * 3_600_000;
  if (again > now && calendar.position(again).minute === want) return again;
  return candidate > now ? candidate : candidate + 24 * 3_600_000;
}
