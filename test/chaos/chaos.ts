/**
 * `npm run chaos [-- KILLS]`: the kill -9 campaign (campaign.ts), 100 kills by default,
 * in a temp dir; prints one line per kill and the final counts, exits 1 on a broken promise.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCampaign } from './campaign.js';

const kills = Number(process.argv[2] ?? 100);
const seed = Number(process.env.CHAOS_SEED ?? Date.now() % 1_000_000);
let a = seed;
const random = () => {
  a = (a + 0x6d2b79f5) | 0;
  let t = Math.imul(a ^ (a >>> 15), 1 | a);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const dir = mkdtempSync(join(tmpdir(), 'heliograph-chaos-'));
const started = Date.now();
console.log(`chaos: ${kills} kills, seed ${seed} (CHAOS_SEED=${seed} repeats the choices), in ${dir}`);
try {
  const result = await runCampaign({ dir, kills, random, importReadings: 120_000, log: (line) => console.log(line) });
  console.log(JSON.stringify(result, null, 2));
  const ok =
    result.imported.count === result.imported.expectedCount &&
    result.imported.sum === result.imported.expectedSum &&
    result.badBackfillHours.length === 0;
  console.log(
    `${ok ? 'PASS' : 'FAIL'}: ${kills} kills in ${((Date.now() - started) / 1000).toFixed(0)} s; imported ${result.imported.count} of ${result.imported.expectedCount} readings; ${result.backfillHours - result.badBackfillHours.length} of ${result.backfillHours} backfilled hours exact; live history kept up to ${result.maxHistoryLagMs} ms before a kill at worst (flush interval 500 ms, slots of 10 s)`,
  );
  if (ok) rmSync(dir, { recursive: true, force: true });
  process.exit(ok ? 0 : 1);
} catch (err) {
  console.error(`FAIL: ${err instanceof Error ? err.message : String(err)} (data kept in ${dir})`);
  process.exit(1);
}
