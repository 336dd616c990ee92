/**
 * The timers the stream runs on (idle close, throttle windows, the minute's system push).
 * Injected together with a Clock, so tests move time by hand instead of sleeping.
 */
export interface Timers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** Node's timers, unref'd: open sockets keep the process alive, not the stream's timers. */
export const systemTimers: Timers = {
  setTimeout: (callback, ms) => setTimeout(callback, ms).unref(),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};
