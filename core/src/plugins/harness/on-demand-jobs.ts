import type { ScheduledJob } from '@heliograph/plugins-sdk/testing';
import {
  checkEvery,
  dailyTimes,
  runReported,
  type DailyOptions,
  type EveryOptions,
  type JobReporter,
  type JobScheduler,
} from '../scheduling/scheduler.js';

/**
 * The plugin harness's scheduler: jobs are kept, checked as the server's scheduler checks
 * them, and run only when the test says so. A run is reported to the instance's status
 * exactly as a timed run is (runReported), so a failing job marks the instance failed.
 */
export class OnDemandJobs implements JobScheduler {
  /** Scheduled jobs by name; a job's disposer (stop, a failed start) removes it. */
  readonly jobs = new Map<string, ScheduledJob>();
  private reporter: JobReporter | undefined;
  private signal: AbortSignal | undefined;

  /** Binds the scheduler to one start of the instance (the context builder calls this). */
  bind(signal: AbortSignal, reporter: JobReporter): this {
    this.signal = signal;
    this.reporter = reporter;
    return this;
  }

  every(options: EveryOptions): () => void {
    checkEvery(options);
    const { name, intervalMs } = options;
    return this.keep({ name, kind: 'every', intervalMs, run: (args) => options.run(args) });
  }

  daily(options: DailyOptions): () => void {
    dailyTimes(options);
    const { name, times } = options;
    return this.keep({ name, kind: 'daily', times, run: (args) => options.run(args) });
  }

  /** Runs a job once, reports the run to the instance and throws what the job threw. */
  async run(name: string): Promise<void> {
    const job = this.jobs.get(name);
    if (!job) throw new Error(`no job named ${name}; scheduled: ${[...this.jobs.keys()].join(', ') || 'none'}`);
    const outcome = await runReported(name, (args) => job.run(args), this.signal!, this.reporter!);
    if (!outcome.ok) throw outcome.error;
  }

  private keep(job: ScheduledJob): () => void {
    this.jobs.set(job.name, job);
    return () => {
      if (this.jobs.get(job.name) === job) this.jobs.delete(job.name);
    };
  }
}
