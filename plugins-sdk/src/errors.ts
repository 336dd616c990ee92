/*
 * Errors a plugin throws so the core can tell what went wrong: a configuration mistake (fail
 * once, no retry), a device that answered no, a device that did not answer at all.
 */

/**
 * A configuration mistake: the instance fails once (state `failed`) with this message, and
 * is not retried with back-off. Say what to change.
 *
 * @example
 * throw new ConfigError('config.connection.port: 0 is not a port; use the gateway\'s Modbus port, usually 502');
 */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/**
 * The device answered and said no (a Modbus exception, a `(NAK`). Failed writes read
 * "the device refused: <answer>".
 *
 * @example
 * throw new DeviceRefusedError({ answer: '(NAK' });
 */
export class DeviceRefusedError extends Error {
  override name = 'DeviceRefusedError';
  /** What the device answered, e.g. `(NAK` or `Modbus exception 2 (illegal data address)`. */
  readonly answer: string;

  constructor({ answer, message }: { answer: string; message?: string }) {
    super(message ?? `the device refused: ${answer}`);
    this.answer = answer;
  }
}

/**
 * The device did not answer: a timeout, a refused or closed connection. Failed writes read
 * "the device did not answer: <message>".
 *
 * @example
 * throw new NoAnswerError({ message: 'no answer within 1500 ms', timeoutMs: 1500 });
 */
export class NoAnswerError extends Error {
  override name = 'NoAnswerError';
  /** The timeout that passed, when the cause was a timeout. */
  readonly timeoutMs?: number;

  constructor({ message, timeoutMs }: { message: string; timeoutMs?: number }) {
    super(message);
    if (timeoutMs !== undefined) this.timeoutMs = timeoutMs;
  }
}
