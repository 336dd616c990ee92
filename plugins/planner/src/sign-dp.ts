/**
 * A rounding of the binaries from the whole horizon at once: dynamic programming over the
 * battery's stored energy, in steps of {@link STEP_KWH}, with each slot's grid flow billed as a
 * meter bills it (import or export, never both). A linear program cannot price that flow where
 * export pays more than import costs (the cost is not convex there, so it needs the binaries);
 * a dynamic program prices any cost exactly, so its cheapest path says on which side of the
 * meter each such slot should be. lp.ts fixes the binaries as the path has them and solves the
 * LP, which then sets the powers exactly. Measured with `npm run bench:planner` (the negative
 * import case), see the planner's README.
 *
 * The car is not in it (its power is a second store): lp.ts gives a car's power as load, as the
 * LP's relaxation planned it.
 */

import type { PlanInput } from './plan-input.js';

/** The stored energy's step, kWh: 201 levels for a 10 kWh battery. */
const STEP_KWH = 0.05;
/** Most levels: a larger battery gets coarser steps, so a plan stays a few ms. */
const MAX_LEVELS = 401;

/** Where each slot's grid flow is on the cheapest path: 1 import (or none), 0 export. Null: not made. */
export function signsByDp(
  input: Pick<PlanInput, 'slots' | 'params' | 'terminalValue'>,
  bounds: { soc0: number; socMin: number; socMax: number; endMin: number; exportMax: number; curtailCost: number },
): Uint8Array | null {
  const { params, slots } = input;
  const T = slots.length;
  const { soc0, socMin, socMax, endMin, exportMax, curtailCost } = bounds;
  const levels = Math.min(MAX_LEVELS, Math.floor((socMax - socMin) / STEP_KWH) + 1);
  if (!(levels >= 2)) return null;
  const step = (socMax - socMin) / (levels - 1);
  const etaC = Math.sqrt(params.roundTripEfficiency);
  const etaD = etaC;
  const start = Math.round((soc0 - socMin) / step);
  /** The battery's power in a slot of `h` hours that stores `kwh` (< 0: gives), kW: charge, discharge. */
  const power = (h: number, kwh: number): readonly [number, number] =>
    kwh > 0 ? [kwh / (etaC * h), 0] : [0, (-kwh * etaD) / h];
  /** The grid's flow in the slot, kW (> 0 import): the house's, the battery's. */
  const gridFlow = (s: (typeof slots)[number], h: number, kwh: number) => {
    const [chargeKw, dischargeKw] = power(h, kwh);
    return s.loadKw - s.pvKw + chargeKw - dischargeKw;
  };
  /** What storing `kwh` costs in the slot: the grid as metered, the wear, curtailment; Infinity where the grid cannot give it. */
  const moveCost = (s: (typeof slots)[number], h: number, kwh: number) => {
    const gridKw = gridFlow(s, h, kwh);
    if (gridKw > params.gridImportMaxKw + 1e-9) return Infinity;
    // What the grid cannot take is curtailed, at the LP's price for it.
    const curtailed = Math.max(0, -exportMax - gridKw);
    const metered = Math.max(gridKw, -exportMax);
    const bill = metered >= 0 ? s.importPrice * metered : s.exportPrice * metered;
    return h * (bill + params.cycleCost * power(h, kwh)[1] + curtailCost * curtailed);
  };
  // next[i]: the cheapest cost from the slot after this one on, with level i at its start (filled backwards).
  let next = new Float64Array(levels);
  for (let i = 0; i < levels; i++) {
    const kwh = socMin + i * step;
    next[i] = kwh < endMin - step / 2 ? Infinity : -input.terminalValue * kwh;
  }
  const choice: Int16Array[] = [];
  for (let t = T - 1; t >= 0; t--) {
    const s = slots[t]!;
    const h = (s.end - s.start) / 3_600_000;
    const up = Math.floor((params.maxChargeKw * h * etaC) / step + 1e-9);
    const down = Math.floor((params.maxDischargeKw * h) / etaD / step + 1e-9);
    // What a move of d levels costs in this slot (the same from every level): at [d + down].
    const move = new Float64Array(up + down + 1);
    for (let d = -down; d <= up; d++) move[d + down] = moveCost(s, h, d * step);
    const here = new Float64Array(levels);
    const best = new Int16Array(levels);
    for (let i = 0; i < levels; i++) {
      const lo = Math.max(0, i - down);
      const hi = Math.min(levels - 1, i + up);
      let cheapest = Infinity;
      let to = i;
      for (let j = lo; j <= hi; j++) {
        const cost = move[j - i + down]! + next[j]!;
        if (cost < cheapest) {
          cheapest = cost;
          to = j;
        }
      }
      here[i] = cheapest;
      best[i] = to;
    }
    choice[t] = best;
    next = here;
  }
  if (!(next[start]! < Infinity)) return null;
  const signs = new Uint8Array(T);
  let i = start;
  for (let t = 0; t < T; t++) {
    const s = slots[t]!;
    const j = choice[t]![i]!;
    signs[t] = gridFlow(s, (s.end - s.start) / 3_600_000, (j - i) * step) >= 0 ? 1 : 0;
    i = j;
  }
  return signs;
}
