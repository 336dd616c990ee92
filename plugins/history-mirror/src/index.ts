/**
 * The history mirror: every reading history records, queued on disk and sent in batches to
 * Prometheus remote-write (Prometheus, VictoriaMetrics, Mimir) or InfluxDB line protocol.
 * An outage of the target, or a restart of the service, only delays readings: the queue
 * keeps them until the target has taken them. Readings recorded before the instance started
 * (the service's first slots, a restart of the instance) are handed over first.
 */
import { definePlugin, type PluginContext } from '@heliograph/plugins-sdk';
import { configSchema, type MirrorConfig } from './config.js';
import { encodeInfluxLines, encodeRemoteWrite } from './encode.js';
import { DiskQueue } from './queue.js';

export { configSchema };

/**
 * The last send and the closing of a stopped instance's queue, by queue folder: an instance
 * started again (a config change, a second server in one process) waits for it, so a batch
 * the target took is dropped from the queue before anyone reads the queue again (else it
 * would be sent twice).
 */
const stopping = new Map<string, Promise<void>>();

export default definePlugin({
  id: 'history-mirror',
  configSchema,
  async setup(ctx, config) {
    const dir = ctx.integration.dataDir;
    await stopping.get(dir);
    const queue = await DiskQueue.open(dir);
    let sending: Promise<void> = Promise.resolve();
    const queued = await queue.size();
    if (queued > 0) ctx.log.info(`${queued} readings queued from before; sending them first`);
    // From the batch after the last one queued: what was recorded before this instance
    // started (the service's first slots, a restart after a config change) comes first.
    ctx.integration.onRecorded({
      after: await queue.position(),
      handler: (readings, position) => {
        queue.append(readings, position).catch((err: Error) => ctx.log.error(`cannot queue readings: ${err.message}`));
      },
    });
    ctx.scheduler.every({
      name: 'send',
      intervalMs: config.flushIntervalMs,
      // A failed send throws: the scheduler retries with back-off and shows the error in the
      // plugin's status; the readings stay queued meanwhile.
      run: ({ signal }) => (sending = sendQueued(ctx, config, queue, signal)),
    });
    return () => {
      const done = sending
        .catch(() => undefined)
        .then(() => queue.close())
        .catch((err: Error) => ctx.log.warn(`closing the queue: ${err.message}`));
      stopping.set(dir, done);
    };
  },
});

/**
 * Sends the queue, oldest first, one batch at a time, until it is empty. A stop ends it
 * between batches, not during one: a batch cut off after the target took it would stay
 * queued and be sent again (SEND_TIMEOUT_MS bounds the wait).
 */
async function sendQueued(ctx: PluginContext, config: MirrorConfig, queue: DiskQueue, signal: AbortSignal) {
  for (;;) {
    if (signal.aborted) return;
    const batch = await queue.head(config.batchSize);
    if (batch.length === 0) return;
    await send(ctx, config, batch);
    await queue.drop(batch.at(-1)!.id);
  }
}

async function send(
  ctx: PluginContext,
  config: MirrorConfig,
  batch: Parameters<typeof encodeInfluxLines>[0],
): Promise<void> {
  const headers: Record<string, string> = {};
  if (config.token) headers.authorization = `Bearer ${config.token}`;
  else if (config.username)
    headers.authorization = `Basic ${Buffer.from(`${config.username}:${config.password ?? ''}`).toString('base64')}`;
  const { siteId } = ctx.integration;
  let url = config.url;
  let body: Buffer | string;
  if (config.target === 'prometheus-remote-write') {
    body = encodeRemoteWrite(batch, siteId);
    Object.assign(headers, {
      'content-type': 'application/x-protobuf',
      'content-encoding': 'snappy',
      'x-prometheus-remote-write-version': '0.1.0',
    });
  } else {
    body = encodeInfluxLines(batch, siteId);
    headers['content-type'] = 'text/plain; charset=utf-8';
    const target = new URL(url);
    if (!target.searchParams.has('precision')) target.searchParams.set('precision', 'ms');
    url = target.href;
  }
  // Node's fetch with a timeout of its own rather than ctx.http, whose requests end when the
  // instance stops: a POST cut off after the target took it would leave the batch queued
  // and send it twice. The answer is a status and a few bytes of error text.
  let answer: Response;
  try {
    answer = await fetch(url, {
      method: 'POST',
      body,
      headers,
      signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
    });
  } catch (err) {
    throw new Error(`${config.url} did not take ${batch.length} readings: ${(err as Error).message}`, { cause: err });
  }
  if (!answer.ok) {
    const text = (await answer.text().catch(() => '')).slice(0, 200);
    throw new Error(`${config.url} did not take ${batch.length} readings: HTTP ${answer.status} ${text}`.trim());
  }
  await answer.arrayBuffer().catch(() => undefined);
}

/** How long one batch's POST may take. */
const SEND_TIMEOUT_MS = 15_000;
