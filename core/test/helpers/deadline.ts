/**
 * Resolves or rejects as `promise` does; rejects after `ms` with "no <what> within N s", so a
 * wait that regresses fails naming what it waited for instead of at the runner's time-out.
 */
export async function within<T>(promise: Promise<T>, what: string, ms = 20_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no ${what} within ${ms / 1000} s`)), ms);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
