/*
 * The IPC channel of a plugin's worker process, seen from inside it: a `postMessage` like a
 * MessagePort's (so the worker context does not care what carries its messages), the start
 * message the host sends first, and an exit that lets a last message reach the host.
 */
import { once } from 'node:events';
import type { WorkerStart } from './protocol.js';

/** What the worker context sends through: a MessagePort or this process's IPC channel. */
export interface WorkerPort {
  postMessage(message: unknown): void;
}

export interface ProcessPort extends WorkerPort {
  /** Sends `last` (when given), then exits with `code` once it left, or after a moment. */
  exit(last: unknown, code: number): void;
}

export function processPort(): ProcessPort {
  const send = process.send?.bind(process);
  if (!send) throw new Error('plugins/isolation/worker/entry.js runs only as a child process with an IPC channel');
  let exiting = false;
  return {
    postMessage(message) {
      // A message sent after the host closed the channel has nobody to reach.
      if (process.connected && !exiting) send(message, undefined, {}, () => undefined);
    },
    exit(last, code) {
      if (exiting) return;
      exiting = true;
      process.exitCode = code;
      if (last === undefined || !process.connected) process.exit(code);
      send(last, undefined, {}, () => process.exit(code));
      setTimeout(() => process.exit(code), 500).unref();
    },
  };
}

/** The host's first message: what to run (see WorkerStart). */
export async function whenStarted(): Promise<WorkerStart> {
  for (;;) {
    const [message] = (await once(process, 'message')) as [{ type?: string; start?: WorkerStart }];
    if (message.type === 'start' && message.start) return message.start;
  }
}
