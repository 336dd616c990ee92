/** Forecast resolution: every forecast point covers one quarter hour. */
export const QUARTER_HOUR_MS = 15 * 60_000;

/** Start of the quarter hour containing `ms`. */
export function floorToQuarterHour(ms: number): number {
  return Math.floor(ms / QUARTER_HOUR_MS) * QUARTER_HOUR_MS;
}

/** Rounds to `decimals` places without float noise in the JSON (0.30000000000000004 -> 0.3). */
export function roundTo(value: number, decimals: number): number {
  const factor = 10 ** decimals;
  const rounded = Math.round(value * factor) / factor;
  return rounded === 0 ? 0 : rounded;
}
