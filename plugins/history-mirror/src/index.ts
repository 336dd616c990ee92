/**
 * The history mirror: every reading history records, queued on disk and sent in batches to
 * Prometheus remote-write (Prometheus, VictoriaMetrics, Mimir) or InfluxDB line protocol.
 * An outage of the target, or a restart of the service, only delays readings: the queue
 * keeps them until the target has taken them.
 */
import { definePlugin, type PluginContext } from '@heliograph/plugins-sdk';
import { configSchema, type MirrorConfig } from './config.js';
import { encodeInfluxLines, encodeRemoteWrite } from './encode.js';
import { DiskQueue } from './queue.js';

export { configSchema };

export default definePlugin({
  id: 'history-mirror',
  configSchema,
  async setup(ctx, config) {
    const queue = await DiskQueue.open(ctx.integration.dataDir);
    const queued = await queue.size();
    if (queued > 0) ctx.log.info(`${queued} readings queued from before; sending them first`);
    ctx.integration.onRecorded({
      handler: (readings) => {
        queue.append(readings).catch((err: Error) => ctx.log.error(`cannot queue readings: ${err.message}`));
      },
    });
    ctx.scheduler.every({
      name: 'send',
      intervalMs: config.flushIntervalMs,
      // A failed send throws: the scheduler retries with back-off and shows the error in the
      // plugin's status; the readings stay queued meanwhile.
      run: ({ signal }) => sendQueued(ctx, config, queue, signal),
    });
    return () => {
      queue.close().catch((err: Error) => ctx.log.warn(`closing the queue: ${err.message}`));
    };
  },
});

/** Sends the queue, oldest first, one batch at a time, until it is empty. */
async function sendQueued(ctx: PluginContext, config: MirrorConfig, queue: DiskQueue, signal: AbortSignal) {
  for (;;) {
    const batch = await queue.head(config.batchSize);
    if (batch.length === 0 || signal.aborted) return;
    await send(ctx, config, batch, signal);
    await queue.drop(batch.at(-1)!.id);
  }
}

async function send(
  ctx: PluginContext,
  config: MirrorConfig,
  batch: Parameters<typeof encodeInfluxLines>[0],
  signal: AbortSignal,
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
  try {
    await ctx.http.post(url, { body, headers, signal, retry: { limit: 0 } });
  } catch (err) {
    throw new Error(`${config.url} did not take ${batch.length} readings: ${(err as Error).message}`, { cause: err });
  }
}
