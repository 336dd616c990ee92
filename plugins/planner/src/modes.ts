/**
 * Turns the LP's flows into what an inverter can be told: one battery mode per slot, with
 * the power and target state of charge of the command and a reason in words.
 */
import type { LpSolution, PlanInput } from './plan-input.js';

export type PlanMode = 'normal' | 'hold' | 'charge' | 'discharge';

export interface SlotAction {
  start: number;
  end: number;
  mode: PlanMode;
  /** The command's power, W (0 for normal and hold). */
  powerW: number;
  /** The command's target state of charge, % (the planned SOC at the slot's end). */
  targetSoc: number;
  /** Planned state of charge at the slot's end, %. */
  socPercent: number;
  /** Planned battery power, W, positive = discharge. */
  batteryW: number;
  /** Planned grid power, W, positive = import. */
  gridW: number;
  importPrice: number;
  reason: string;
}

/** Below this (kW) a flow counts as zero. */
const EPS_KW = 0.05;

export interface Describe {
  currency: string;
  timeZone: string;
  /**
   * The zone's offsets over the plan ({@link zoneOffsets}), made by the service: with them
   * the solver's own process words its reasons without loading ICU, which costs a fresh
   * process about 20 ms of CPU at its first plan. Without them, Intl.
   */
  offsets?: ZoneOffsets;
}

/** A time zone's UTC offsets from `from` to `until` (ms): each change's offset holds from its `at` on. */
export interface ZoneOffsets {
  timeZone: string;
  from: number;
  until: number;
  changes: Array<{ at: number; offsetMs: number }>;
}

const QUARTER_MS = 15 * 60_000;
const DAY_MS = 24 * 3_600_000;

/**
 * `timeZone`'s offsets over [from, until), read at every quarter hour (the offsets in use
 * today are whole quarter hours, so their changes fall on quarter hours in UTC).
 */
export function zoneOffsets(timeZone: string, from: number, until: number): ZoneOffsets {
  const fmt = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' });
  const offsetAt = (time: number) => {
    const name = fmt.formatToParts(time).find((p) => p.type === 'timeZoneName')!.value; // GMT, GMT+05:45
    const m = /^GMT([+-])(\d\d):(\d\d)$/.exec(name);
    return m ? (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3])) * 60_000 : 0;
  };
  const start = Math.floor(from / QUARTER_MS) * QUARTER_MS;
  const changes = [{ at: start, offsetMs: offsetAt(start) }];
  for (let t = start + QUARTER_MS; t < until; t += QUARTER_MS) {
    const offsetMs = offsetAt(t);
    if (offsetMs !== changes[changes.length - 1]!.offsetMs) changes.push({ at: t, offsetMs });
  }
  return { timeZone, from: start, until, changes };
}

/**
 * One action per slot. Where the plan's battery power is what self-consumption would do
 * anyway, `normal` (the device follows the actual load and PV); where it only keeps the
 * battery from discharging, `hold`; otherwise an exact setpoint: `charge` at the planned
 * charging power (from the grid, or less than the PV surplus so the rest is exported) or
 * `discharge` at the planned discharging power (part of the load, or beyond it to export;
 * 0 W keeps the battery idle so the PV surplus is exported).
 */
export function toActions(input: PlanInput, sol: LpSolution, describe: Describe): SlotAction[] {
  const { params } = input;
  const cap = params.capacityKwh;
  const eta = Math.sqrt(params.roundTripEfficiency);
  const actions: SlotAction[] = [];
  for (let t = 0; t < input.slots.length; t++) {
    const s = input.slots[t]!;
    const h = (s.end - s.start) / 3_600_000;
    const socStart = t === 0 ? input.socPercent : sol.socPercent[t - 1]!;
    const battery = sol.dischargeKw[t]! - sol.chargeKw[t]!;
    // The site's meter sees the car as load: in Normal the battery would feed it too. So a
    // slot where the plan keeps the battery off the car is Hold or an exact Discharge.
    const net = s.loadKw + (sol.carKw[t] ?? 0) - s.pvKw;
    const availableKw = Math.max(0, (((socStart - params.reserveSoc) / 100) * cap * eta) / h);
    const roomKw = Math.max(0, (((params.maxSoc - socStart) / 100) * cap) / (eta * h));
    const normal =
      net > 0 ? Math.min(net, params.maxDischargeKw, availableKw) : -Math.min(-net, params.maxChargeKw, roomKw);
    const hold = Math.min(0, normal);
    let mode: PlanMode;
    let powerKw = 0;
    if (Math.abs(battery - normal) <= EPS_KW) mode = 'normal';
    else if (Math.abs(battery - hold) <= EPS_KW) mode = 'hold';
    else if (battery < 0) {
      mode = 'charge';
      powerKw = -battery;
    } else {
      mode = 'discharge';
      powerKw = Math.max(0, battery);
    }
    const socPercent = round(sol.socPercent[t]!, 1);
    let targetSoc = socPercent;
    if (mode === 'charge') targetSoc = Math.min(100, Math.ceil(socPercent));
    if (mode === 'discharge')
      targetSoc = Math.max(params.reserveSoc, Math.min(Math.floor(socPercent), Math.ceil(socStart) - 1));
    actions.push({
      start: s.start,
      end: s.end,
      mode,
      powerW: Math.round(powerKw * 1000),
      targetSoc,
      socPercent,
      batteryW: Math.round(battery * 1000),
      gridW: Math.round((sol.importKw[t]! - sol.exportKw[t]!) * 1000),
      importPrice: s.importPrice,
      reason: '',
    });
  }
  for (let t = 0; t < actions.length; t++) actions[t]!.reason = reasonFor(input, actions, t, describe);
  return actions;
}

function reasonFor(input: PlanInput, actions: readonly SlotAction[], t: number, d: Describe): string {
  const a = actions[t]!;
  const price = (p: number) => `${p.toFixed(2)} ${d.currency}/kWh`;
  const now = `${price(a.importPrice)} now`;
  const later = actions.slice(t + 1);
  const at = (x: SlotAction) =>
    `${x.importPrice.toFixed(2)} at ${clockTime(x.start, a.start, d.offsets ?? d.timeZone)}`;
  // The dearest quarter the battery is planned to supply, else the dearest of all.
  const dearestLater = () =>
    maxBy(
      later.filter((x) => x.batteryW > 0),
      (x) => x.importPrice,
    ) ?? maxBy(later, (x) => x.importPrice);
  switch (a.mode) {
    case 'charge': {
      const peak = dearestLater();
      const exportNow = input.slots[t]!.exportPrice;
      if (input.slots[t]!.importPrice < 0) return `charge: ${now} (paid to take power)`;
      return peak ? `charge: ${now}, ${at(peak)}` : `charge: ${now}; export would earn ${price(exportNow)}`;
    }
    case 'discharge': {
      const exportNow = input.slots[t]!.exportPrice;
      if (a.powerW === 0) return `discharge: 0 W, export the PV for ${price(exportNow)} now, store it later`;
      const low = minBy(later, (x) => x.importPrice);
      return `discharge: ${now}, export pays ${price(exportNow)}${low ? `; ${at(low)} to refill` : ''}`;
    }
    case 'hold': {
      const peak = dearestLater();
      return `hold: ${now}, keeping the battery for ${peak ? at(peak) : 'later'}`;
    }
    default:
      return `normal: self-consumption at ${now}`;
  }
}

const formatters = new Map<string, { hm: Intl.DateTimeFormat; day: Intl.DateTimeFormat }>();

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const two = (n: number) => String(n).padStart(2, '0');

/**
 * `18:00`, or `Tue 18:00` when not on the same local day as `ref`, in a time zone; by its
 * offsets when they span both times (the same words, without ICU).
 */
export function clockTime(time: number, ref: number, zone: string | ZoneOffsets): string {
  if (typeof zone !== 'string') {
    const local = (t: number) =>
      t >= zone.from && t < zone.until ? t + zone.changes.findLast((c) => c.at <= t)!.offsetMs : undefined;
    const [at, atRef] = [local(time), local(ref)];
    if (at === undefined || atRef === undefined) return clockTime(time, ref, zone.timeZone);
    const d = new Date(at);
    const hm = `${two(d.getUTCHours())}:${two(d.getUTCMinutes())}`;
    return Math.floor(at / DAY_MS) === Math.floor(atRef / DAY_MS) ? hm : `${WEEKDAYS[d.getUTCDay()]} ${hm}`;
  }
  let f = formatters.get(zone);
  if (!f) {
    f = {
      hm: new Intl.DateTimeFormat('en-GB', { timeZone: zone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }),
      day: new Intl.DateTimeFormat('en-GB', { timeZone: zone, weekday: 'short', day: '2-digit' }),
    };
    formatters.set(zone, f);
  }
  const hm = f.hm.format(time);
  if (f.day.format(time) === f.day.format(ref)) return hm;
  return `${f.day.formatToParts(time).find((p) => p.type === 'weekday')!.value} ${hm}`;
}

function maxBy<T>(xs: readonly T[], f: (x: T) => number): T | undefined {
  let best: T | undefined;
  for (const x of xs) if (best === undefined || f(x) > f(best)) best = x;
  return best;
}

function minBy<T>(xs: readonly T[], f: (x: T) => number): T | undefined {
  return maxBy(xs, (x) => -f(x));
}

function round(v: number, digits: number): number {
  const m = 10 ** digits;
  return Math.round(v * m) / m;
}
