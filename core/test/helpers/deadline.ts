/*
 * Deadlines for the waits of tests: a regression fails with what was awaited, in seconds,
 * instead of at the test runner's 120 s time-out naming nothing.
 */
import { setTimeout as delay } from 'node:timers/promises';

/**
 * Resolves or rejects as `promise` does; rejects after `ms` with "no <what> within N s"
 * (`what` may be a function, called at the deadline to say what was seen by then).
 */
export async function within<T>(promise: Promise<T>, what: string | (() => string), ms = 20_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no ${typeof what === 'string' ? what : what()} within ${ms / 1000} s`)),
      ms,
    );
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Calls `check` every `everyMs` until it answers `done: true`; rejects after `ms` naming what
 * was awaited and the last thing `check` saw (`seen`).
 */
export async function pollUntil(
  check: () => Promise<{ done: boolean; seen?: unknown }>,
  what: string,
  options: { ms?: number; everyMs?: number } = {},
): Promise<void> {
  const { ms = 20_000, everyMs = 100 } = options;
  const deadline = Date.now() + ms;
  for (;;) {
    const { done, seen } = await check();
    if (done) return;
    if (Date.now() > deadline)
      throw new Error(
        `${what}: not so within ${ms / 1000} s${seen === undefined ? '' : `; last seen ${JSON.stringify(seen)}`}`,
      );
    await delay(everyMs);
  }
}
