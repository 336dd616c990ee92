/*
 * Writing only what changed: devices that keep their settings in EEPROM (a time-of-use
 * program, eco groups, time slots) wear with every write, so a driver sends only the
 * registers whose words differ, in runs of neighbouring registers (one request a run).
 */

/** One write request: its first register and the words from there. */
export interface RegisterRun {
  address: number;
  values: number[];
}

/**
 * The runs of consecutive registers whose words differ, from `base`: what a write of `next`
 * over `old` must send, nothing more.
 *
 * @example
 * changedRuns(250, [1, 2, 3], [1, 5, 6]); // [{ address: 251, values: [5, 6] }]
 */
export function changedRuns(base: number, old: readonly number[], next: readonly number[]): RegisterRun[] {
  const runs: RegisterRun[] = [];
  next.forEach((word, i) => {
    if (word === old[i]) return;
    const last = runs.at(-1);
    if (last && last.address + last.values.length === base + i) last.values.push(word);
    else runs.push({ address: base + i, values: [word] });
  });
  return runs;
}
