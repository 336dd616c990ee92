import { z } from '@heliograph/plugins-sdk';
import { IANAZone } from 'luxon';
import { HouseholdLoad } from './load.js';
import type { SiteModel } from './site.js';
import { defaultPanel } from './sun.js';

export const configSchema = z.object({
  seed: z
    .number()
    .int()
    .default(1)
    .describe('Seed of the weather, household load and price noise: the same seed gives the same days.')
    .meta({ title: 'Random seed' }),
  pollIntervalMs: z
    .number()
    .int()
    .min(1000, 'must be from 1000 to 600000 (milliseconds)')
    .max(600_000, 'must be from 1000 to 600000 (milliseconds)')
    .default(5000)
    .describe('How often the simulation publishes new readings, in milliseconds.')
    .meta({ title: 'Publish every (milliseconds)' }),
  pvPeakW: z
    .union([z.number().positive(), z.array(z.number().positive()).min(1)])
    .default([5000, 3000])
    .describe(
      'PV peak power in W per inverter, in device order; a single number applies to every inverter, a short list repeats its last entry.',
    )
    .meta({ title: 'PV peak power (W)' }),
  capacityKwh: z
    .number()
    .positive()
    .max(1000)
    .default(10)
    .describe('Usable capacity of each battery in kWh.')
    .meta({ title: 'Battery capacity (kWh)' }),
  maxChargeW: z
    .number()
    .positive()
    .default(5000)
    .describe('Largest charging power of each battery in W.')
    .meta({ title: 'Max charge power (W)' }),
  maxDischargeW: z
    .number()
    .positive()
    .default(5000)
    .describe('Largest discharging power of each battery in W.')
    .meta({ title: 'Max discharge power (W)' }),
  initialSoc: z
    .number()
    .min(0, 'must be from 0 to 100 (%)')
    .max(100, 'must be from 0 to 100 (%)')
    .default(60)
    .describe('State of charge in % at the very first start; later starts continue from the stored state.')
    .meta({ title: 'Initial state of charge (%)' }),
  reserveSoc: z
    .number()
    .min(0, 'must be from 0 to 100 (%)')
    .max(100, 'must be from 0 to 100 (%)')
    .default(10)
    .describe('The battery is not discharged below this state of charge (%).')
    .meta({ title: 'Reserve state of charge (%)' }),
  backfill_days: z
    .number()
    .int()
    .min(0, 'must be from 0 to 365 (days)')
    .max(365, 'must be from 0 to 365 (days)')
    .default(0)
    .describe('Days of past history to simulate into the history store, once, at the first start with a value above 0.')
    .meta({ title: 'Days of history to simulate' }),
  demoForecast: z
    .boolean()
    .default(true)
    .describe('Publish a demo weather and PV forecast (2 days back, 3 days ahead).')
    .meta({ title: 'Demo forecast' }),
  demoPrices: z
    .boolean()
    .default(true)
    .describe('Publish demo grid prices for today and tomorrow.')
    .meta({ title: 'Demo prices' }),
});

export type SimulatorConfig = z.output<typeof configSchema>;

export function peakOfInverter(config: SimulatorConfig, index: number): number {
  const peaks = typeof config.pvPeakW === 'number' ? [config.pvPeakW] : config.pvPeakW;
  return peaks[Math.min(index, peaks.length - 1)]!;
}

export function isKnownTimeZone(timeZone: string): boolean {
  return IANAZone.isValidZone(timeZone);
}

export function createSiteModel(args: {
  config: SimulatorConfig;
  latitude: number;
  longitude: number;
  timeZone: string;
  inverterCount: number;
  batteryCount: number;
}): SiteModel {
  const { config } = args;
  const peaks = Array.from({ length: args.inverterCount }, (_, i) => peakOfInverter(config, i));
  const totalPeak = peaks.reduce((a, b) => a + b, 0);
  return {
    seed: config.seed,
    latitude: args.latitude,
    longitude: args.longitude,
    panel: defaultPanel(args.latitude),
    load: new HouseholdLoad(config.seed, args.timeZone),
    inverters: peaks.map((peakW) => ({ peakW, share: peakW / totalPeak })),
    battery: {
      count: args.batteryCount,
      capacityWh: config.capacityKwh * 1000,
      maxChargeW: config.maxChargeW,
      maxDischargeW: config.maxDischargeW,
      reserveSoc: config.reserveSoc,
    },
  };
}
