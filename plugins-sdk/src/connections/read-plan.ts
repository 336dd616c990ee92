/*
 * Groups a register map's entries into as few read requests as allowed: entries of one
 * table, sorted by address, join the current request while it stays within `maxCount`
 * registers, skips at most `maxGap` unneeded registers, and spans no unreadable range.
 */
import type { RegisterEntry } from './register-entries.js';
import { registerCount } from './register-values.js';

/**
 * One read request of a plan, and the entries it serves.
 *
 * @example
 * { table: 'holding', address: 169, count: 23, entries: [gridPower, loadPower, ...] }
 */
export interface ReadBlock {
  table: 'holding' | 'input';
  address: number;
  count: number;
  entries: RegisterEntry[];
}

interface PlanOptions {
  maxCount: number;
  maxGap: number;
  unreadable: ReadonlyArray<{ from: number; to: number; table: 'holding' | 'input' }>;
}

/** The read requests for `entries` (each with its `table` set). */
export function planReads(
  entries: readonly RegisterEntry[],
  { maxCount, maxGap, unreadable }: PlanOptions,
): ReadBlock[] {
  const blocks: ReadBlock[] = [];
  for (const table of ['holding', 'input'] as const) {
    const sorted = entries.filter((e) => e.table === table).sort((a, b) => a.address - b.address);
    const holes = unreadable.filter((r) => r.table === table);
    let block: ReadBlock | undefined;
    for (const entry of sorted) {
      const end = entry.address + registerCount(entry); // exclusive
      if (block) {
        const blockEnd = block.address + block.count;
        const fits =
          end - block.address <= maxCount &&
          entry.address - blockEnd <= maxGap &&
          !holes.some((h) => h.from < end && blockEnd <= h.to);
        if (fits) {
          block.count = Math.max(block.count, end - block.address);
          block.entries.push(entry);
          continue;
        }
      }
      block = { table, address: entry.address, count: end - entry.address, entries: [entry] };
      blocks.push(block);
    }
  }
  return blocks;
}
