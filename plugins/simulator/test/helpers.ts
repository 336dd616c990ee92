import type { SiteInfo } from '@heliograph/plugins-sdk';
import { type TestHost, startTestHost } from '@heliograph/plugins-sdk/testing';
import plugin from '../src/index.js';

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;
/** Midsummer, Sunday, 02:00 in Berlin: night at latitude 52.5. */
export const MIDSUMMER = Date.parse('2026-06-21T00:00:00Z');
export const BERLIN: SiteInfo = { timeZone: 'Europe/Berlin', latitude: 52.52, longitude: 13.405, temperatureUnit: 'C' };
export const TWO_INVERTERS_ONE_BATTERY = ['inverter_1', 'inverter_2', 'battery_1'];

export function startSimulator(options: {
  config?: Record<string, unknown>;
  devices?: string[];
  now?: number;
  store?: Record<string, unknown>;
  site?: Partial<SiteInfo>;
}): Promise<TestHost> {
  return startTestHost({
    plugin,
    config: { demoForecast: false, demoPrices: false, ...options.config },
    devices: options.devices ?? TWO_INVERTERS_ONE_BATTERY,
    site: { ...BERLIN, ...options.site },
    now: options.now ?? MIDSUMMER,
    store: options.store,
  });
}

export function num(host: TestHost, topic: string): number {
  const value = host.value(topic);
  if (typeof value !== 'number') throw new Error(`${topic} is ${JSON.stringify(value)}, not a number`);
  return value;
}

/** Moves the clock in `stepMs` steps from `from` to `to` (inclusive), polling at each, and calls `check` after each poll. */
export async function pollThrough(
  host: TestHost,
  from: number,
  to: number,
  stepMs: number,
  check?: (time: number) => void,
): Promise<void> {
  for (let t = from; t <= to; t += stepMs) {
    host.setTime(t);
    await host.runJob('poll');
    check?.(t);
  }
}

export function inverterIds(host: TestHost): string[] {
  return host.ctx.devices.filter((d) => d.kind === 'inverter').map((d) => d.id);
}
