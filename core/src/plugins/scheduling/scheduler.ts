/*
 * plugins/scheduling: when a plugin's jobs run (`ctx.scheduler`: every n ms, daily at a
 * local time), on the server's clock, and how long a run may take before the job is called
 * hung and its instance restarted.
 */
import { DateTime } from 'luxon';
import type { Clock } from '../../clock.js';

/** How a job's runs went, for the plugin's status. */
export interface JobReporter {
  succeeded(job: string): void;
  failed(job: string, error: unknown): void;
  /**
   * A run did not settle within the job's timeout: the host restarts the instance (its
   * process). Without it (the plugin harness) the run counts as failed.
   */
  hung?(job: string, message: string): void;
}

export interface EveryOptions {
  name: string;
  intervalMs: number;
  immediate?: boolean;
  /** Longest run; default {@link jobTimeoutMs}. */
  timeoutMs?: number;
  run(args: { signal: AbortSignal }): Promise<void> | void;
}

export interface DailyOptions {
  name: string;
  /** `HH:MM` local times. */
  times: string[];
  timeZone: string;
  /** Longest run; default {@link jobTimeoutMs}. */
  timeoutMs?: number;
  run(args: { signal: AbortSignal }): Promise<void> | void;
}

/** How a plugin's jobs run: on timers in the server, on demand in the plugin harness. */
export interface JobScheduler {
  every(options: EveryOptions): () => void;
  daily(options: DailyOptions): () => void;
}

const MAX_BACKOFF_MS = 15 * 60_000;
/** The least and most a run may take by default, whatever its interval. */
const MIN_JOB_TIMEOUT_MS = 60_000;
const MAX_JOB_TIMEOUT_MS = 30 * 60_000;

/**
 * How long a run of a job may take: its own `timeoutMs`, else twice the interval of an
 * `every` job (a 5 s poll 1 min, an hourly fetch 30 min), within 1 to 30 minutes; 30
 * minutes for a daily job.
 */
export function jobTimeoutMs(job: { timeoutMs?: number; intervalMs?: number }): number {
  if (job.timeoutMs !== undefined && job.timeoutMs > 0) return job.timeoutMs;
  if (job.intervalMs === undefined) return MAX_JOB_TIMEOUT_MS;
  return Math.min(Math.max(job.intervalMs * 2, MIN_JOB_TIMEOUT_MS), MAX_JOB_TIMEOUT_MS);
}

/** Refuses an `every` job whose interval is not a positive number. */
export function checkEvery(options: Pick<EveryOptions, 'name' | 'intervalMs'>): void {
  if (!(options.intervalMs > 0)) throw new Error(`job ${options.name}: intervalMs must be a positive number`);
}

/** The `HH:MM` times of a daily job; refuses an empty list or a time that is not HH:MM. */
export function dailyTimes(options: Pick<DailyOptions, 'name' | 'times'>): Array<{ hour: number; minute: number }> {
  // With no time there is no next run: the timer would get an infinite delay, which Node turns into 1 ms.
  if (options.times.length === 0) throw new Error(`job ${options.name}: times must list at least one HH:MM time`);
  return options.times.map((t) => parseTimeOfDay(t, options.name));
}

/** A run that did not settle within its job's timeout. */
export class JobTimeoutError extends Error {
  override name = 'JobTimeoutError';
  readonly code = 'JOB_TIMEOUT';
}

/**
 * Runs a job once and tells the reporter how it went; nothing is reported once the instance
 * stopped (`signal` aborted). Resolves with what the run threw, if it threw. A run still
 * going after `timeoutMs` is reported hung (and left behind: nothing can stop a promise).
 */
export async function runReported(
  name: string,
  run: EveryOptions['run'],
  signal: AbortSignal,
  reporter: JobReporter,
  timeoutMs?: number,
): Promise<{ ok: true } | { ok: false; error: unknown }> {
  let timer: NodeJS.Timeout | undefined;
  const deadline =
    timeoutMs === undefined
      ? undefined
      : new Promise<never>((_resolve, reject) => {
          timer = setTimeout(
            () =>
              reject(
                new JobTimeoutError(
                  `job ${name} did not finish within ${formatMs(timeoutMs)} (JOB_TIMEOUT); the plugin is restarted`,
                ),
              ),
            timeoutMs,
          );
        });
  try {
    const running = Promise.resolve().then(() => run({ signal }));
    await (deadline ? Promise.race([running, deadline]) : running);
    if (!signal.aborted) reporter.succeeded(name);
    return { ok: true };
  } catch (error) {
    if (signal.aborted) return { ok: false, error };
    if (error instanceof JobTimeoutError && reporter.hung) reporter.hung(name, error.message);
    else reporter.failed(name, error);
    return { ok: false, error };
  } finally {
    clearTimeout(timer);
  }
}

function formatMs(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

/**
 * Delay before retrying a failed run: from a tenth of the interval (at least 1 s), doubling
 * per consecutive failure, never beyond the interval itself nor 15 minutes. A poll job of
 * 5 s retries after 1, 2, 4, 5 s; an hourly price fetch after 6, 12, 15, 15... min.
 */
export function backoffDelay(intervalMs: number, failures: number): number {
  const first = Math.max(1000, intervalMs / 10);
  return Math.min(first * 2 ** (failures - 1), intervalMs, MAX_BACKOFF_MS);
}

/**
 * Runs one plugin's jobs. Runs of a job never overlap: the next run is timed from the end
 * of the previous one. Everything stops when `signal` aborts.
 */
export class PluginScheduler implements JobScheduler {
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(
    private readonly clock: Clock,
    private readonly signal: AbortSignal,
    private readonly reporter: JobReporter,
  ) {
    signal.addEventListener('abort', () => this.clear(), { once: true });
  }

  every(options: EveryOptions): () => void {
    checkEvery(options);
    let stopped = false;
    let failures = 0;
    let timer: NodeJS.Timeout | undefined;
    const loop = async () => {
      if (stopped || this.signal.aborted) return;
      const ok = await this.runOnce(options.name, (ctx) => options.run(ctx), jobTimeoutMs(options));
      failures = ok ? 0 : failures + 1;
      if (!stopped) timer = this.later(loop, ok ? options.intervalMs : backoffDelay(options.intervalMs, failures));
    };
    timer = this.later(loop, options.immediate === false ? options.intervalMs : 0);
    return () => {
      stopped = true;
      if (timer) this.cancel(timer);
    };
  }

  daily(options: DailyOptions): () => void {
    const times = dailyTimes(options);
    let stopped = false;
    let failures = 0;
    let timer: NodeJS.Timeout | undefined;
    const schedule = () => {
      if (stopped) return;
      const next = nextDailyTime(this.clock.now(), times, options.timeZone);
      timer = this.later(fire, next - this.clock.now());
    };
    const fire = async () => {
      if (stopped || this.signal.aborted) return;
      const ok = await this.runOnce(options.name, (ctx) => options.run(ctx), jobTimeoutMs(options));
      if (ok) {
        failures = 0;
        schedule();
        return;
      }
      failures += 1;
      // Retry soon after a failure, but never past the next regular time.
      const next = nextDailyTime(this.clock.now(), times, options.timeZone);
      const retry = backoffDelay(MAX_BACKOFF_MS, failures);
      timer = this.later(fire, Math.min(retry, Math.max(0, next - this.clock.now())));
    };
    schedule();
    return () => {
      stopped = true;
      if (timer) this.cancel(timer);
    };
  }

  private async runOnce(name: string, run: EveryOptions['run'], timeoutMs: number): Promise<boolean> {
    return (await runReported(name, run, this.signal, this.reporter, timeoutMs)).ok;
  }

  private later(fn: () => void | Promise<void>, ms: number): NodeJS.Timeout {
    const timer = setTimeout(
      () => {
        this.timers.delete(timer);
        void fn();
      },
      Math.max(0, ms),
    );
    this.timers.add(timer);
    return timer;
  }

  private cancel(timer: NodeJS.Timeout): void {
    clearTimeout(timer);
    this.timers.delete(timer);
  }

  private clear(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }
}

function parseTimeOfDay(text: string, job: string): { hour: number; minute: number } {
  const match = /^([01]\d|2[0-3]):([0-5]\d)$/.exec(text);
  if (!match) throw new Error(`job ${job}: time "${text}" is not HH:MM`);
  return { hour: Number(match[1]), minute: Number(match[2]) };
}

/** The next instant after `now` at which one of `times` stands on the clocks of `timeZone`. */
export function nextDailyTime(now: number, times: Array<{ hour: number; minute: number }>, timeZone: string): number {
  const today = DateTime.fromMillis(now, { zone: timeZone }).startOf('day');
  let best = Infinity;
  for (let day = 0; day <= 1; day++) {
    for (const { hour, minute } of times) {
      const at = today.plus({ days: day }).set({ hour, minute, second: 0, millisecond: 0 }).toMillis();
      if (at > now && at < best) best = at;
    }
  }
  return best;
}
