/**
 * Fills the history with the simulated past, so a fresh install has days to show. Runs the
 * same model as the live poll at 10-s steps, one hour per `record` call per device (the
 * inverters' power, the batteries' power, state of charge, voltage, current and
 * temperature, all from the same steps, so the charge follows the recorded battery power),
 * so memory stays flat however many days are asked for.
 */
import type { Device, PluginContext } from '@heliograph/plugins-sdk';
import { recordedBatteryValues, recordedInverterValues } from './declarations.js';
import { STEP_MS } from './live.js';
import { type BackfillProgress, STORE_KEYS } from './persisted.js';
import { initialState, type InverterSettings, type SiteModel, step } from './site.js';

const CHUNK_MS = 3_600_000;

/** The backfill of `days` ending at `startedAt` (first reading at from, last at to - 10 s). */
export function planBackfill(model: SiteModel, startedAt: number, days: number, initialSoc: number): BackfillProgress {
  const to = Math.floor(startedAt / STEP_MS) * STEP_MS;
  const from = to - days * 86_400_000;
  return { from, to, next: from, state: initialState(model, from - STEP_MS, initialSoc), done: false };
}

/**
 * Records from `progress.next` on. Saves progress (and logs it) about every 10 %, so a
 * restart resumes rather than starts over; returns false when stopped before the end.
 */
export async function runBackfill(args: {
  ctx: PluginContext;
  model: SiteModel;
  inverters: readonly Device[];
  /** The batteries, in the model's bank order (none: only the inverters are recorded). */
  batteries?: readonly Device[];
  settings: readonly InverterSettings[];
  progress: BackfillProgress;
  signal: AbortSignal;
}): Promise<boolean> {
  const { ctx, model, inverters, settings, signal } = args;
  const batteries = args.batteries ?? [];
  const progress = { ...args.progress };
  const total = progress.to - progress.from;
  let state = progress.state;
  let reportedTenths = Math.floor(((progress.next - progress.from) / total) * 10);
  if (progress.next === progress.from) {
    ctx.log.info(`backfilling ${Math.round(total / 86_400_000)} days of history`, {
      from: new Date(progress.from).toISOString(),
    });
  }
  while (progress.next < progress.to) {
    if (signal.aborted) return false;
    const chunkEnd = Math.min(progress.next + CHUNK_MS, progress.to);
    const readings: Array<Array<{ time: number; values: Record<string, number> }>> = inverters.map(() => []);
    const packs: Array<Array<{ time: number; values: Record<string, number> }>> = batteries.map(() => []);
    while (state.time + STEP_MS < chunkEnd) {
      const result = step(model, state, STEP_MS, settings);
      state = result.state;
      const time = result.readings.time;
      result.readings.inverters.forEach((reading, i) =>
        readings[i]!.push({ time, values: recordedInverterValues(reading) }),
      );
      batteries.forEach((_, b) => {
        const reading = result.readings.batteries[b];
        if (reading) packs[b]!.push({ time, values: recordedBatteryValues(reading) });
      });
    }
    for (let i = 0; i < inverters.length; i++) {
      await ctx.topics.record({ device: inverters[i]!.id, readings: readings[i]! });
    }
    for (let b = 0; b < batteries.length; b++) {
      await ctx.topics.record({ device: batteries[b]!.id, readings: packs[b]! });
    }
    progress.next = chunkEnd;
    progress.state = state;
    const tenths = Math.floor(((progress.next - progress.from) / total) * 10);
    if (tenths > reportedTenths) {
      reportedTenths = tenths;
      await ctx.store.set(STORE_KEYS.backfill, progress);
      ctx.log.info(`backfill ${tenths * 10}% done`, { percent: tenths * 10 });
    }
    // Let the live poll and API requests in between chunks even if `record` answered at once.
    await new Promise((resolve) => setImmediate(resolve));
  }
  await ctx.store.set(STORE_KEYS.backfill, { ...progress, done: true });
  return true;
}
