import { TypedEmitter, type ListenerSignature } from 'tiny-typed-emitter';
import { createLogger } from './log.js';

const log = createLogger('events');

/**
 * A typed emitter whose listeners cannot break each other: each is called in its own
 * try/catch, so a failing WebSocket client or recorder never stops the others.
 */
export class SafeEmitter<L extends ListenerSignature<L>> extends TypedEmitter<L> {
  override emit<U extends keyof L>(event: U, ...args: Parameters<L[U]>): boolean {
    const listeners = this.listeners(event);
    for (const listener of listeners) {
      try {
        (listener as (...a: unknown[]) => void)(...args);
      } catch (err) {
        log.error(`listener of "${String(event)}" threw`, { err });
      }
    }
    return listeners.length > 0;
  }
}
