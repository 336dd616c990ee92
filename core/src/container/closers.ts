import { createLogger } from '../log.js';

const log = createLogger('server');

/** What is undone on close, last first; a failed start undoes what was built. */
export class Closers {
  private readonly list: Array<() => Promise<void> | void> = [];
  push(closer: () => Promise<void> | void): void {
    this.list.push(closer);
  }
  async close(): Promise<void> {
    for (const closer of this.list.splice(0).reverse()) {
      try {
        await closer();
      } catch (err) {
        log.error('error while closing', { err });
      }
    }
  }
}
