// What the planner's end-to-end tests share: the server with the simulator (a winter day
// with little sun) and the planner on a manual clock, and a step of the clock that waits
// until both ran after it.
import type { ManualClock } from '@heliograph/core/clock';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { instanceWhen, valuesOf } from '../drivers/driver-api.js';

export const QUARTER = 15 * 60_000;
// 20:00 UTC = 21:00 in Berlin, a winter night: no PV until tomorrow morning; the demo
// prices are cheapest around 03:00 and dearest around 19:00 local.
export const EVENING_BEFORE = Date.parse('2026-12-21T20:00:00Z');
export const P = 'planner_1';

export async function start(
  clock: ManualClock,
  plannerConfig: Record<string, unknown> = {},
  more: { plugins?: unknown[]; dataDir?: string; sim?: Record<string, unknown>; simDevices?: string[] } = {},
): Promise<TestServer> {
  return startTestServer({
    clock,
    bundled: ['simulator', 'planner'],
    fixtures: more.plugins ? ['refusing-battery'] : [],
    ...(more.dataDir ? { dataDir: more.dataDir } : {}),
    config: { site: { timeZone: 'Europe/Berlin', latitude: 52.5, longitude: 13.4 } },
    plugins: [
      {
        id: 'sim',
        plugin: 'simulator',
        devices: more.simDevices ?? ['inverter_1', 'battery_1'],
        // A winter day with little sun: the night's cheap energy is what fills the bank.
        config: { pollIntervalMs: 1000, initialSoc: 30, backfill_days: 0, pvPeakW: 300, ...more.sim },
      },
      { id: 'planner', plugin: 'planner', devices: ['planner_1'], config: { checkIntervalMs: 150, ...plannerConfig } },
      ...(more.plugins ?? []),
    ],
  });
}

/** Moves the clock on and waits until both the planner and the simulator ran after the move. */
export async function step(server: TestServer, clock: ManualClock, ms: number): Promise<Map<string, unknown>> {
  clock.advance(ms);
  const at = clock.now();
  for (const id of ['sim', 'planner'])
    await instanceWhen(
      server,
      id,
      (i) => Date.parse((i as unknown as { last_poll: string | null }).last_poll ?? '') >= at,
      `${id} ran at ${new Date(at).toISOString()}`,
    );
  return valuesOf(server);
}
