/*
 * What a driver of one device on a byte-protocol link (a BMS on RS485/UART, a TCP serial
 * bridge) repeats around its own request: the link's state in the device's availability and
 * the plugin's status, a silent device marked unavailable, the link released on stop.
 */
import type { Disposer, PluginContext } from '../context.js';
import { NoAnswerError } from '../errors.js';
import type { StreamLink } from './registry.js';

/**
 * Polls one device over `link` every `pollIntervalMs` with `poll`: a lost connection marks
 * the device unavailable and shows in the plugin's status until the link reconnects; a poll
 * the device does not answer marks it unavailable and fails naming the device. Returns the
 * disposer for setup to return (it releases the link).
 *
 * @example
 * return pollStreamDevice(ctx, { link, device, pollIntervalMs: config.pollIntervalMs, poll: async (signal) => publish(await ask(signal)) });
 */
export function pollStreamDevice(
  ctx: Pick<PluginContext, 'topics' | 'status' | 'scheduler'>,
  {
    link,
    device,
    pollIntervalMs,
    poll,
  }: { link: StreamLink; device: string; pollIntervalMs: number; poll: (signal: AbortSignal) => Promise<void> },
): Disposer {
  const offDisconnect = link.on('disconnect', (reason) => {
    ctx.topics.markUnavailable({ device, reason });
    ctx.status.error({ message: `${device}: ${reason}` });
  });
  const offConnect = link.on('connect', () => ctx.status.ok());
  ctx.scheduler.every({
    name: 'poll',
    intervalMs: pollIntervalMs,
    run: async ({ signal }) => {
      try {
        await poll(signal);
      } catch (error) {
        if (error instanceof NoAnswerError && !signal.aborted) {
          ctx.topics.markUnavailable({ device, reason: error.message });
          throw new NoAnswerError({ message: `${device}: ${error.message}`, timeoutMs: error.timeoutMs });
        }
        throw error;
      }
    },
  });
  return () => {
    offDisconnect();
    offConnect();
    link.release();
  };
}
