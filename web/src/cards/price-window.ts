// The cheapest stretch of a price schedule for a job of a given length ("run the dishwasher
// for 2 h tomorrow"): the start whose next `minutes` cost least on average, weighting each
// slot by the time it covers. Pure, for the price card and its tests.

export interface PriceSpan {
  from: number;
  to: number;
  price: number;
}

export interface CheapestWindow {
  from: number;
  to: number;
  /** Mean price over the window. */
  mean: number;
}

/**
 * The cheapest window of `minutes` that starts at a slot start within [from, to) and lies
 * wholly within contiguous slots; null when no such window fits.
 */
export function cheapestWindow(slots: PriceSpan[], minutes: number, from: number, to: number): CheapestWindow | null {
  const length = minutes * 60_000;
  const sorted = slots.filter((s) => s.to > s.from).sort((a, b) => a.from - b.from);
  let best: CheapestWindow | null = null;
  for (let i = 0; i < sorted.length; i++) {
    const start = sorted[i]!.from;
    if (start < from || start + length > to) continue;
    const end = start + length;
    let cost = 0;
    let reached = start;
    for (let j = i; j < sorted.length && reached < end; j++) {
      const s = sorted[j]!;
      if (s.from !== reached) break; // a hole in the schedule: no window across it
      const until = Math.min(s.to, end);
      cost += s.price * (until - reached);
      reached = until;
    }
    if (reached < end) continue;
    const mean = cost / length;
    if (!best || mean < best.mean - 1e-12) best = { from: start, to: end, mean };
  }
  return best;
}
