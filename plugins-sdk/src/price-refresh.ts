/*
 * The schedule every price source repeated: a regular refresh, and for a day-ahead market a
 * few tries after the market's daily publication.
 */
import type { Disposer, PluginContext } from './context.js';

/** How {@link schedulePriceRefresh} runs a source's refresh. */
export interface PriceRefreshOptions {
  /** Minutes between regular refreshes (the config's `refreshMinutes`). */
  refreshMinutes: number;
  /**
   * Wall-clock times (`HH:mm`) in `timeZone` to refresh again after the market publishes
   * tomorrow's prices; left out for a source without a daily publication.
   */
  dayAhead?: { times: string[]; timeZone: string };
  /** Fetches and publishes the prices; a failure shows in the plugin's status. */
  run: (args: { signal: AbortSignal }) => Promise<void>;
}

/**
 * Schedules a price source's refresh: job `refresh` every `refreshMinutes`, and job
 * `day-ahead` at `dayAhead.times` in `dayAhead.timeZone`. Returns a disposer for both (the
 * host also undoes them when the plugin stops).
 *
 * @example
 * schedulePriceRefresh(ctx, {
 *   refreshMinutes: config.refreshMinutes,
 *   dayAhead: { times: ['13:15', '13:45', '14:30'], timeZone: 'Europe/Berlin' },
 *   run: refresh,
 * });
 */
export function schedulePriceRefresh(
  ctx: Pick<PluginContext, 'scheduler'>,
  { refreshMinutes, dayAhead, run }: PriceRefreshOptions,
): Disposer {
  const every = ctx.scheduler.every({ name: 'refresh', intervalMs: refreshMinutes * 60_000, run });
  if (!dayAhead) return every;
  const daily = ctx.scheduler.daily({ name: 'day-ahead', times: dayAhead.times, timeZone: dayAhead.timeZone, run });
  return () => {
    every();
    daily();
  };
}
