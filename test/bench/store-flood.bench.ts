/**
 * `npm run bench:store-flood`: a third-party plugin (test/fixtures/plugins/store-flood, run
 * sandboxed in its own process as any plugin under development is) writes its `ctx.store`
 * as fast as the server takes it: 8 writes at once of 900 kB values over 8 keys (7.2 MB,
 * inside the 10 MB quota, so every write is taken), while a REST client asks
 * `GET /api/v1/metrics?topic=total/*` and `GET /api/v1/audit?limit=5` (which first writes
 * what the audit holds, through the same write path as the store) back to back. Prints REST
 * latency before and during the flood (target: p99 under 250 ms) and how much was written.
 */
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { probeRest, reportFloodVerdict, reportRest } from './rest-probe.js';
import { basicAuth, REPO_ROOT, row, startServerProcess } from './support.js';

const SECONDS = Number(process.env.BENCH_STORE_FLOOD_SECONDS ?? 15);
/**
 * 900 kB by default, within the 1 MB a value may hold. BENCH_STORE_FLOOD_VALUE_BYTES=16000000
 * raises the instance's quotas to take 16 MB values: what the default quotas keep away.
 */
const VALUE_BYTES = Number(process.env.BENCH_STORE_FLOOD_VALUE_BYTES ?? 900_000);
const RAISED = VALUE_BYTES > 1024 * 1024;
const PASSWORD = 'store-flood-bench-password';
const TARGET_P99_MS = 250;

/** Asks both paths in turn, back to back, for `ms`; returns each answer's latency in ms. */
const probe = (url: string, ms: number) =>
  probeRest(url, PASSWORD, ['/api/v1/metrics?topic=total/*', '/api/v1/audit?limit=5'], delay(ms));

async function value(url: string, topic: string): Promise<string> {
  const res = await fetch(`${url}/api/v1/metrics?topic=${topic}&value=1`, {
    headers: { authorization: basicAuth(PASSWORD) },
  });
  return res.status === 200 ? res.text() : `(${res.status})`;
}

const server = await startServerProcess({
  password: PASSWORD,
  env: { HELIOGRAPH_PLUGIN_DIR: join(REPO_ROOT, 'test', 'fixtures', 'plugins', 'store-flood') },
  plugins: {
    plugins: [
      { id: 'sim', plugin: 'simulator', devices: ['inverter_1', 'battery_1'], config: { pollIntervalMs: 1000 } },
      {
        id: 'flood',
        plugin: 'store-flood',
        enabled: false,
        devices: ['flood_1'],
        config: { valueBytes: VALUE_BYTES, keys: 8, concurrency: 8 },
        ...(RAISED ? { quotas: { storeMaxValueBytes: 16 * 1024 * 1024, storeMaxBytes: 1024 * 1024 * 1024 } } : {}),
      },
    ],
  },
});
const auth = { authorization: basicAuth(PASSWORD), 'content-type': 'application/json' };
console.log(
  `bench:store-flood: a sandboxed plugin writes ${VALUE_BYTES / 1000} kB store values, 8 at once, for ${SECONDS} s` +
    `${RAISED ? ' (its quotas raised to take them)' : ''}; ` +
    'REST GET /api/v1/metrics?topic=total/* and /api/v1/audit?limit=5 back to back',
);
await probe(server.url, 1000); // the first answer checks the password; later ones are remembered
reportRest('before the flood', await probe(server.url, 5000));
const on = await fetch(`${server.url}/api/v1/plugins/flood`, {
  method: 'PATCH',
  headers: auth,
  body: JSON.stringify({ enabled: true }),
});
if (on.status !== 200) throw new Error(`switching the flood on answered ${on.status}: ${await on.text()}`);
const p99 = reportRest('during the flood', await probe(server.url, SECONDS * 1000));
const written = Number(await value(server.url, 'flood_1/written'));
row(
  'store writes taken',
  `${written} (${((written * VALUE_BYTES) / 1e6 / SECONDS).toFixed(0)} MB/s), refused ${await value(server.url, 'flood_1/refused')}`,
);
reportFloodVerdict(p99, TARGET_P99_MS);
await server.stop();
process.exit(0);
