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

const backfillSchema = z.object({
  /** Unix ms of the first reading. */
  from: z.number(),
  /** Unix ms after the last reading. */
  to: z.number(),
  /** Unix ms of the first reading not yet recorded. */
  next: z.number(),
  /** The model's state just before `next`. */
  state: siteStateSchema,
  done: z.boolean(),
});
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
  const parsed = backfillSchema.safeParse(await store.get(STORE_KEYS.backfill));
  return parsed.success ? parsed.data : undefined;
}
