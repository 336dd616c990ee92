/**
 * Bounds concurrent expensive work (scrypt: 32 MiB and tens of milliseconds each). At most
 * `maxActive` jobs run, at most `maxWaiting` wait; a job beyond that is refused at once
 * (`run` returns undefined) instead of queueing: a flood of password guesses from many
 * addresses would otherwise hold memory and delay every legitimate login behind it.
 */
export class WorkGate {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    readonly maxActive: number,
    readonly maxWaiting: number,
  ) {}

  /** Runs `job` when a slot is free; undefined (without running it) when the queue is full. */
  run<T>(job: () => Promise<T>): Promise<T> | undefined {
    if (this.active >= this.maxActive && this.waiting.length >= this.maxWaiting) return undefined;
    return this.acquire().then(async () => {
      try {
        return await job();
      } finally {
        this.release();
      }
    });
  }

  /** Jobs running or waiting (for tests). */
  get load(): number {
    return this.active + this.waiting.length;
  }

  private acquire(): Promise<void> {
    if (this.active < this.maxActive) {
      this.active++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private release(): void {
    const next = this.waiting.shift();
    // The slot passes straight to the next job, so `active` stays as it is.
    if (next) next();
    else this.active--;
  }
}
