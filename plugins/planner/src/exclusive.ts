/**
 * Import and export kept apart where export pays more than import costs (see lp.ts): which
 * slots need a binary, and the local search that improves on the rounded plan before HiGHS's
 * branch and cut where the dynamic program's rounding (sign-dp.ts) is not the end: a plan with
 * a car (whose load the rounding guessed), and a reference solved to the end. HiGHS's search
 * within its budget (200 nodes, 80 ms) left 0.3-0.8 EUR on six 48 h plans with 36-47 such
 * quarter hours (a negative import price under a fixed feed-in) against a search run to the
 * end; one pass of flips took 60-96 % of it back, about 1 ms of CPU a flip (npm run
 * bench:planner, the negative import case).
 */

/** What decides whether a slot needs a binary. */
interface Prices {
  importPrice: number;
  exportPrice: number;
}

/**
 * Whether import and export must be kept apart in this slot by a binary. Only where export
 * pays more than import costs: elsewhere (negative prices included) the cost of the net flow
 * is convex (max of import price x flow and export price x flow), so doing both at once only
 * costs and the LP never does it.
 */
export function needsExclusivity(slot: Prices): boolean {
  return slot.importPrice < slot.exportPrice;
}

/** Numbers the slots that need a binary in `binaryOf` (-1: none); their count. */
export function numberBinaries(slots: readonly Prices[], binaryOf: Int32Array): number {
  let count = 0;
  for (let t = 0; t < slots.length; t++) if (needsExclusivity(slots[t]!)) binaryOf[t] = count++;
  return count;
}

/** How many binaries, earliest first, {@link improveByFlips} tries the other way: an LP each. */
const FLIPS = 64;

type Fixed = { x: Float64Array; objective: number };

/**
 * A local search after the rounding: each binary of the first {@link FLIPS} in turn set the
 * other way (import instead of export, or back), kept where the LP with it fixed is cheaper.
 * The earliest first: they are the ones executed, and the next plan starts from this one's
 * choice (lp.ts `PlanInput.importHint`). `fix` fixes every binary by a rule and solves,
 * `bound` fixes one, `solve` solves with the bounds as they are. Null: no rounding solves.
 */
export function improveByFlips(
  start: Fixed,
  binaries: ReadonlyArray<{ col: number; slot: number }>,
  m: {
    fix: (rule: (col: number, slot: number) => number) => Fixed | null;
    bound: (col: number, y: number) => void;
    solve: () => Fixed | null;
  },
): Fixed | null {
  const y = new Map(binaries.map(({ col }) => [col, (start.x[col] ?? 0) >= 0.5 ? 1 : 0]));
  // The rounding's own choice fixed again (the last LP solved may have been another's).
  let best = m.fix((col) => y.get(col)!);
  if (!best) return null;
  for (const { col } of binaries.slice(0, FLIPS)) {
    const other = 1 - y.get(col)!;
    m.bound(col, other);
    const flipped = m.solve();
    if (flipped && flipped.objective < best.objective - 1e-9) {
      best = flipped;
      y.set(col, other);
    } else m.bound(col, y.get(col)!);
  }
  return best;
}
