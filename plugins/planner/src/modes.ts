/**
 * Turns the LP's flows into what an inverter can be told: one battery mode per slot, with
 * the power and target state of charge of the command and a reason in words.
 */
import type { LpSolution, PlanInput } from './lp.js';

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
}

/**
 * One action per slot. Charging beyond the PV surplus is `charge`; discharging beyond the
 * load (export) is `discharge`; covering less than half of the planned deficit from the
 * battery is `hold` (keep the energy for later); everything else is `normal`.
 */
export function toActions(input: PlanInput, sol: LpSolution, describe: Describe): SlotAction[] {
  const actions: SlotAction[] = [];
  for (let t = 0; t < input.slots.length; t++) {
    const s = input.slots[t]!;
    const ch = sol.chargeKw[t]!;
    const dis = sol.dischargeKw[t]!;
    const surplus = Math.max(0, s.pvKw - s.loadKw);
    const deficit = Math.max(0, s.loadKw - s.pvKw);
    let mode: PlanMode = 'normal';
    let powerKw = 0;
    if (ch - dis > surplus + EPS_KW) {
      mode = 'charge';
      powerKw = ch - dis;
    } else if (dis - ch > deficit + EPS_KW) {
      mode = 'discharge';
      powerKw = dis - ch;
    } else if (deficit > EPS_KW && dis - ch < deficit / 2 && sol.socPercent[t]! > input.params.reserveSoc + 0.5) {
      mode = 'hold';
    }
    const socPercent = round(sol.socPercent[t]!, 1);
    actions.push({
      start: s.start,
      end: s.end,
      mode,
      powerW: Math.round(powerKw * 1000),
      targetSoc: mode === 'charge' ? Math.ceil(socPercent) : mode === 'discharge' ? Math.floor(socPercent) : socPercent,
      socPercent,
      batteryW: Math.round((dis - ch) * 1000),
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
  const at = (x: SlotAction) => `${x.importPrice.toFixed(2)} at ${clockTime(x.start, a.start, d.timeZone)}`;
  switch (a.mode) {
    case 'charge': {
      const peak =
        maxBy(
          later.filter((x) => x.batteryW > 0),
          (x) => x.importPrice,
        ) ?? maxBy(later, (x) => x.importPrice);
      const exportNow = input.slots[t]!.exportPrice;
      if (input.slots[t]!.importPrice < 0) return `charge: ${now} (paid to take power)`;
      return peak ? `charge: ${now}, ${at(peak)}` : `charge: ${now}; export would earn ${price(exportNow)}`;
    }
    case 'discharge': {
      const low = minBy(later, (x) => x.importPrice);
      const exportNow = input.slots[t]!.exportPrice;
      return `discharge: ${now}, export pays ${price(exportNow)}${low ? `; ${at(low)} to refill` : ''}`;
    }
    case 'hold': {
      const peak =
        maxBy(
          later.filter((x) => x.batteryW > 0),
          (x) => x.importPrice,
        ) ?? maxBy(later, (x) => x.importPrice);
      return `hold: ${now}, keeping the battery for ${peak ? at(peak) : 'later'}`;
    }
    default:
      return `normal: self-consumption at ${now}`;
  }
}

const formatters = new Map<string, { hm: Intl.DateTimeFormat; day: Intl.DateTimeFormat }>();

/** `18:00`, or `Tue 18:00` when not on the same local day as `ref`. */
export function clockTime(time: number, ref: number, timeZone: string): string {
  let f = formatters.get(timeZone);
  if (!f) {
    f = {
      hm: new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }),
      day: new Intl.DateTimeFormat('en-GB', { timeZone, weekday: 'short', day: '2-digit' }),
    };
    formatters.set(timeZone, f);
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
