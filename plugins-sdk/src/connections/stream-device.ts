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

/**
 * Sends `request` and resolves with the parsed reply to `command`: a frame `parse` refuses
 * fails the check as "bad checksum", one answering another command as "reply to command
 * 9a"; either makes the link write the request once more before the reply counts as missing.
 *
 * @example
 * const { data } = await requestCommandReply(link, { request: frame(0x90), command: 0x90, complete: frameLength, parse: parseFrame, timeoutMs, signal });
 */
export async function requestCommandReply<F extends { command: number }>(
  link: StreamLink,
  options: {
    request: Buffer;
    command: number;
    /** Length of a complete frame at the start of `buf`, or -1 while more bytes are needed. */
    complete: (buf: Buffer) => number;
    /** The frame's fields, or undefined when its length, markers or checksum are wrong. */
    parse: (frame: Buffer) => F | undefined;
    timeoutMs: number;
    signal: AbortSignal;
  },
): Promise<F> {
  const { command, parse } = options;
  // The frame the check took, parsed once.
  let taken: F | undefined;
  await link.request(options.request, {
    complete: options.complete,
    check: (frame) => {
      const parsed = parse(frame);
      if (!parsed) return 'bad checksum';
      if (parsed.command !== command) return `reply to command ${parsed.command.toString(16)}`;
      taken = parsed;
      return true;
    },
    resendOnBadFrame: 1,
    timeoutMs: options.timeoutMs,
    signal: options.signal,
  });
  return taken!;
}

/**
 * The sum of `bytes`, which byte protocols cut to their checksum's width (`& 0xff`, `& 0xffff`).
 *
 * @example
 * const checksum = byteSum(frame.subarray(0, 12)) & 0xff;
 */
export function byteSum(bytes: Uint8Array): number {
  let sum = 0;
  for (const byte of bytes) sum += byte;
  return sum;
}
