/*
 * Errors a plugin throws to tell the core what went wrong, so the core can react to each
 * the right way: a configuration mistake fails once, a device's refusal or silence reads
 * as such in the write result and audit log.
 */

/**
 * A configuration mistake: the instance fails once (state `failed`) with this message and
 * is not retried, since retrying cannot help. Say what to change. Throw it from `setup` or
 * a job; any other error is taken as transient and retried with back-off.
 *
 * The core raises it too, for plugin config failing `configSchema` (unknown keys included),
 * a `devices` list the manifest's `heliograph.devices` does not allow, and per-device config
 * failing `deviceConfigSchema`.
 *
 * @example
 * if (config.unitIds.length !== ctx.devices.length)
 *   throw new ConfigError(`unitIds lists ${config.unitIds.length} ids for ${ctx.devices.length} devices: give one per device`);
 */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/**
 * The device answered and said no (a Modbus exception, a `(NAK` reply). A write handler
 * that throws it fails the write with "the device refused: <answer>".
 *
 * @example
 * if (reply === '(NAK') throw new DeviceRefusedError({ answer: reply });
 * throw new DeviceRefusedError({ answer: 'exception 2 (illegal data address)', message: 'register 210 is read-only' });
 */
export class DeviceRefusedError extends Error {
  /** What the device answered, as the user should read it: `(NAK`, `exception 2 (illegal data address)`. */
  readonly answer: string;

  constructor(args: { answer: string; message?: string }) {
    super(args.message ?? `the device refused: ${args.answer}`);
    this.name = 'DeviceRefusedError';
    this.answer = args.answer;
  }
}

/**
 * The device did not answer: a timeout, a refused or closed connection. A write handler
 * that throws it fails the write with "the device did not answer: <message>"; a poll that
 * throws it is a transient error (retried with back-off).
 *
 * @example
 * throw new NoAnswerError({ message: 'no reply within 1500 ms', timeoutMs: 1500 });
 * throw new NoAnswerError({ message: `connection to ${host}:${port} refused` });
 */
export class NoAnswerError extends Error {
  /** The time waited for the answer, when a timeout was the cause. */
  readonly timeoutMs?: number;

  constructor(args: { message: string; timeoutMs?: number }) {
    super(args.message);
    this.name = 'NoAnswerError';
    if (args.timeoutMs !== undefined) this.timeoutMs = args.timeoutMs;
  }
}
