/**
 * What the simulator keeps in its store between starts: the settings written to each
 * inverter (a real inverter remembers them too), the battery's state, and how far the
 * history backfill got. Stored JSON is parsed like any outside input: an unreadable entry
 * is ignored and rebuilt.
 */
import { type PluginStore, z } from '@heliograph/plugins-sdk';
import { MAX_CHARGE_CURRENT } from './declarations.js';
import { OUTPUT_SOURCE_PRIORITIES, type InverterSettings, type SiteState } from './site.js';

export const STORE_KEYS = {
  settings: 'settings',
  state: 'state',
  backfill: 'backfill',
  priceZone: 'priceZone',
} as const;

const settingsSchema = z.record(
  z.string(),
  z.object({
    outputSourcePriority: z.enum(OUTPUT_SOURCE_PRIORITIES),
    maxChargeCurrentA: z.number().min(MAX_CHARGE_CURRENT.min).max(MAX_CHARGE_CURRENT.max),
  }),
);

export const siteStateSchema = z.object({
  time: z.number(),
  soc: z.number().min(0).max(100),
  inverterTemperatureC: z.array(z.number()),
  batteryTemperatureC: z.array(z.number()),
});

/** Part of the backfill still to record: from `next` (the state just before it is `state`) to `to`. */
const segmentSchema = z.object({
  /** Unix ms of the first reading not yet recorded. */
  next: z.number(),
  /** Unix ms after the segment's last reading. */
  to: z.number(),
  /** The model's state just before `next`. */
  state: siteStateSchema,
});
export type BackfillSegment = z.infer<typeof segmentSchema>;

const backfillSchema = z.object({
  /** Unix ms of the first reading. */
  from: z.number(),
  /** Unix ms after the last reading. */
  to: z.number(),
  /** The model's state after the last reading: where the live simulation of the first start goes on from. */
  end: siteStateSchema.nullable(),
  /** What is left to record, newest first: today (from local midnight), then each day before it. */
  segments: z.array(segmentSchema),
  done: z.boolean(),
});

/** The progress an earlier version saved (one segment recorded oldest first), resumed as one segment. */
const oldestFirstSchema = z
  .object({ from: z.number(), to: z.number(), next: z.number(), state: siteStateSchema, done: z.boolean() })
  .transform(({ from, to, next, state, done }) => ({
    from,
    to,
    end: null,
    segments: next < to ? [{ next, to, state }] : [],
    done,
  }));
export type BackfillProgress = z.infer<typeof backfillSchema>;

export const DEFAULT_SETTINGS: InverterSettings = { outputSourcePriority: 'SBU priority', maxChargeCurrentA: 60 };

export async function loadSettings(store: PluginStore, deviceIds: readonly string[]): Promise<InverterSettings[]> {
  const parsed = settingsSchema.safeParse(await store.get(STORE_KEYS.settings));
  const saved = parsed.success ? parsed.data : {};
  return deviceIds.map((id) => ({ ...DEFAULT_SETTINGS, ...saved[id] }));
}

export async function saveSettings(
  store: PluginStore,
  deviceIds: readonly string[],
  settings: readonly InverterSettings[],
): Promise<void> {
  await store.set(STORE_KEYS.settings, Object.fromEntries(deviceIds.map((id, i) => [id, settings[i]])));
}

/** The stored state; `step` fills in temperatures of devices added since it was saved. */
export async function loadState(store: PluginStore): Promise<SiteState | undefined> {
  const parsed = siteStateSchema.safeParse(await store.get(STORE_KEYS.state));
  return parsed.success ? parsed.data : undefined;
}

export async function loadBackfill(store: PluginStore): Promise<BackfillProgress | undefined> {
  const parsed = z.union([backfillSchema, oldestFirstSchema]).safeParse(await store.get(STORE_KEYS.backfill));
  return parsed.success ? parsed.data : undefined;
}
