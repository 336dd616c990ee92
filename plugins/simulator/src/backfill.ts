/**
 * Fills the history with the simulated past, so a fresh install has days to show. Runs the
 * same model as the live poll at 10-s steps, one hour per `record` call per device (the
 * inverters' power, the batteries' power, state of charge, voltage, current and
 * temperature, all from the same steps, so the charge follows the recorded battery power),
 * so memory stays flat however many days are asked for.
 *
 * Newest day first: a first pass runs the model through the whole span without recording
 * (about a tenth of the work: recording is most of it), keeping the state at each local
 * midnight and at the end; then today (from local midnight) is recorded, then yesterday, and
 * so on, each day from its kept state. So today's figures are there within a second or two,
 * every day joins the next without a jump, and the live simulation goes on from the end.
 */
import type { Device, PluginContext } from '@heliograph/plugins-sdk';
import { DateTime } from 'luxon';
import { recordedBatteryValues, recordedInverterValues } from './declarations.js';
import { STEP_MS } from './live.js';
import { type BackfillProgress, type BackfillSegment, STORE_KEYS } from './persisted.js';
import {
  initialState,
  type BatteryReading,
  type InverterSettings,
  type SiteModel,
  type SiteReadings,
  type SiteState,
  step,
} from './site.js';

const CHUNK_MS = 3_600_000;
const STEPS_PER_CHUNK = CHUNK_MS / STEP_MS;
const DAY_MS = 86_400_000;
/** Progress is saved after this many recorded hours (and at each day's end), so a restart loses little. */
const SAVE_EVERY_CHUNKS = 6;

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

/** Lets the live poll and API requests in between chunks of work. */
const yieldToLoop = () => new Promise((resolve) => setImmediate(resolve));

/**
 * The local midnights after `from` and up to the last reading (before `to`), newest first: where
 * the backfill's days begin. On the 10-s grid, as every reading is.
 */
export function dayStarts(from: number, to: number, timeZone: string): number[] {
  const starts: number[] = [];
  let day = DateTime.fromMillis(to - STEP_MS, { zone: timeZone }).startOf('day');
  for (let start = day.toMillis(); start > from; start = day.toMillis()) {
    starts.push(Math.floor(start / STEP_MS) * STEP_MS);
    day = day.minus({ days: 1 });
  }
  return starts;
}

/**
 * The backfill of `days` ending at `startedAt` (first reading at from, last at to - 10 s): the
 * first pass through the model, yielding to the event loop every simulated hour, that keeps
 * the state at each day's start and at the end. Undefined when stopped meanwhile.
 */
export async function planBackfill(args: {
  model: SiteModel;
  startedAt: number;
  days: number;
  initialSoc: number;
  timeZone: string;
  settings: readonly InverterSettings[];
  signal: AbortSignal;
}): Promise<BackfillProgress | undefined> {
  const { model, days, settings } = args;
  const to = Math.floor(args.startedAt / STEP_MS) * STEP_MS;
  const from = to - days * DAY_MS;
  const bounds = [to, ...dayStarts(from, to, args.timeZone), from];
  // Oldest first here: state after state, keeping the one just before each day's first reading.
  let state = initialState(model, from - STEP_MS, args.initialSoc);
  const segments: BackfillSegment[] = [];
  for (let i = bounds.length - 1; i > 0; i--) {
    const [next, end] = [bounds[i]!, bounds[i - 1]!];
    segments.unshift({ next, to: end, state });
    let steps = 0;
    while (state.time + STEP_MS < end) {
      state = step(model, state, STEP_MS, settings).state;
      if (++steps % STEPS_PER_CHUNK === 0) {
        await yieldToLoop();
        if (args.signal.aborted) return undefined;
      }
    }
  }
  return { from, to, end: state, segments, done: false };
}

/** How many days of the span are recorded, for the progress report. */
function daysDone(progress: BackfillProgress): number {
  const left = progress.segments.reduce((sum, s) => sum + (s.to - s.next), 0);
  return (progress.to - progress.from - left) / DAY_MS;
}

/**
 * Records what `progress` has left, newest day first, reporting progress (ctx.status.progress,
 * which the core shows and logs) after each hour and saving it every few hours and at each
 * day's end, so a restart resumes rather than starts over; returns false when stopped before
 * the end.
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
  const progress = { ...args.progress, segments: [...args.progress.segments] };
  const days = Math.round((progress.to - progress.from) / DAY_MS);
  const report = () =>
    ctx.status.progress?.({
      what: `Recording the demo's last ${days} ${days === 1 ? 'day' : 'days'}`,
      done: daysDone(progress),
      total: days,
      unit: 'days',
    });
  if (daysDone(progress) === 0)
    ctx.log.info(`backfilling ${days} days of history, newest first`, { from: new Date(progress.from).toISOString() });
  report();
  // One column block per device, reused chunk after chunk: a device's readings become
  // objects only for its own `record` call, and are garbage as soon as that call has them.
  const devices = [
    ...inverters.map((d, i) => new DeviceColumns(d.id, (r) => recordedInverterValues(r.inverters[i]!))),
    ...batteries.map((d, b) => new DeviceColumns(d.id, (r) => recordedBatteryReading(r.batteries[b]))),
  ];
  let unsaved = 0;
  while (progress.segments.length > 0) {
    const segment = progress.segments[0]!;
    if (signal.aborted) return false;
    const chunkEnd = Math.min(segment.next + CHUNK_MS, segment.to);
    const state = recordChunk(model, segment.state, chunkEnd, settings, devices);
    for (const d of devices) await d.record(ctx);
    const finished = chunkEnd >= segment.to;
    if (finished) progress.segments.shift();
    else progress.segments[0] = { next: chunkEnd, to: segment.to, state };
    if (finished || ++unsaved >= SAVE_EVERY_CHUNKS) {
      unsaved = 0;
      await ctx.store.set(STORE_KEYS.backfill, progress);
    }
    report();
    await yieldToLoop();
  }
  await ctx.store.set(STORE_KEYS.backfill, { ...progress, done: true });
  return true;
}

/** Steps the model from `state` up to `chunkEnd`, adding each step's readings to the devices' columns. */
function recordChunk(
  model: SiteModel,
  from: SiteState,
  chunkEnd: number,
  settings: readonly InverterSettings[],
  devices: readonly DeviceColumns[],
): SiteState {
  let state = from;
  for (const d of devices) d.clear();
  while (state.time + STEP_MS < chunkEnd) {
    const result = step(model, state, STEP_MS, settings);
    state = result.state;
    for (const d of devices) d.add(result.readings);
  }
  return state;
}
