import type { PluginContext } from '@heliograph/plugins-sdk';

/**
 * Which of an instance's start-up jobs have not run yet. An instance shows "starting" until
 * its setup and the first run of each job that runs at once (`every` without
 * `immediate: false`) have finished, so a saved config that cannot reach its device shows
 * the failure instead of a green "running". Daily jobs are not waited for: their first run
 * may be hours away.
 */
export class FirstRuns {
  private readonly pending = new Set<string>();

  /** Wraps `ctx.scheduler.every` so the jobs scheduled through it are tracked. */
  track(ctx: PluginContext): PluginContext {
    const scheduler = ctx.scheduler;
    const every: PluginContext['scheduler']['every'] = (job) => {
      if (job.immediate !== false) this.pending.add(job.name);
      const dispose = scheduler.every(job);
      // A job stopped before its first run will never report one.
      return () => {
        this.pending.delete(job.name);
        dispose();
      };
    };
    (ctx as { scheduler: PluginContext['scheduler'] }).scheduler = { ...scheduler, every };
    return ctx;
  }

  /** A job's run finished (well or not). */
  ran(job: string): void {
    this.pending.delete(job);
  }

  get done(): boolean {
    return this.pending.size === 0;
  }
}
