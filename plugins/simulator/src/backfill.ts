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
import {
  initialState,
  type BatteryReading,
  type InverterSettings,
  type SiteModel,
  type SiteReadings,
  step,
} from './site.js';

const CHUNK_MS = 3_600_000;
const STEPS_PER_CHUNK = CHUNK_MS / STEP_MS;

/** A battery's recorded values, or none when the model has no reading for it. */
function recordedBatteryReading(reading: BatteryReading | undefined): Record<string, number> | undefined {
  return reading ? recordedBatteryValues(reading) : undefined;
}

class PastReading {
  constructor(
    readonly time: number,
    readonly values: Record<string, number>,
  ) {}
}

/** One device's readings of a chunk as columns of numbers (a row per step, a column per metric). */
class DeviceColumns {
  private names: string[] = [];
  private times = new Float64Array(STEPS_PER_CHUNK);
  private values = new Float64Array(0);
  private n = 0;

  constructor(
    readonly id: string,
    private readonly valuesOf: (readings: SiteReadings) => Record<string, number> | undefined,
  ) {}

  clear(): void {
    this.n = 0;
  }

  add(readings: SiteReadings): void {
    const values = this.valuesOf(readings);
    if (!values) return;
    if (this.names.length === 0) {
      this.names = Object.keys(values);
      this.values = new Float64Array(STEPS_PER_CHUNK * this.names.length);
    }
    const m = this.names.length;
    if (this.n === this.times.length) this.grow();
    this.times[this.n] = readings.time;
    for (let j = 0; j < m; j++) this.values[this.n * m + j] = values[this.names[j]!]!;
    this.n++;
  }

  private grow(): void {
    const times = new Float64Array(this.times.length * 2);
    times.set(this.times);
    const values = new Float64Array(this.values.length * 2);
    values.set(this.values);
    this.times = times;
    this.values = values;
  }

  /** Records the chunk; the reading objects exist only for this call (not kept across its await). */
  record(ctx: PluginContext): Promise<void> {
    // Instances of a class, not object literals: V8 moves a literal's allocation site to
    // the old generation once it sees its objects alive at a scavenge (they are, while
    // the record call converts them), and every later backfill hour would then go there.
    const readings = new Array<PastReading>(this.n);
    const m = this.names.length;
    for (let k = 0; k < this.n; k++) {
      const values: Record<string, number> = {};
      for (let j = 0; j < m; j++) values[this.names[j]!] = this.values[k * m + j]!;
      readings[k] = new PastReading(this.times[k]!, values);
    }
    return ctx.topics.record({ device: this.id, readings });
  }
}

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
  // One column block per device, reused chunk after chunk: a device's readings become
  // objects only for its own `record` call, and are garbage as soon as that call has them.
  const devices = [
    ...inverters.map((d, i) => new DeviceColumns(d.id, (r) => recordedInverterValues(r.inverters[i]!))),
    ...batteries.map((d, b) => new DeviceColumns(d.id, (r) => recordedBatteryReading(r.batteries[b]))),
  ];
  while (progress.next < progress.to) {
    if (signal.aborted) return false;
    const chunkEnd = Math.min(progress.next + CHUNK_MS, progress.to);
    for (const d of devices) d.clear();
    while (state.time + STEP_MS < chunkEnd) {
      const result = step(model, state, STEP_MS, settings);
      state = result.state;
      for (const d of devices) d.add(result.readings);
    }
    for (const d of devices) await d.record(ctx);
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
