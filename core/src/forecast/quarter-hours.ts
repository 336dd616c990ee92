/** Forecast resolution: every forecast point covers one quarter hour. */
export const QUARTER_HOUR_MS = 15 * 60_000;

/** Start of the quarter hour containing `ms`. */
export function floorToQuarterHour(ms: number): number {
  return Math.floor(ms / QUARTER_HOUR_MS) * QUARTER_HOUR_MS;
}
