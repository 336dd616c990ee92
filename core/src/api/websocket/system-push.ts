import { createLogger } from '../../log.js';
import type { SystemInfo } from '../../system/info.js';
import type { Client } from './client.js';
import { SharedPush } from './protocol.js';
import type { Selection } from './selection.js';
import type { Timers } from './timers.js';

const log = createLogger('websocket');

export interface SystemPushOptions {
  system: SystemInfo;
  timers: Timers;
  intervalMs: number;
  /** The hub's selections: joined sockets get the rows. */
  selections: ReadonlyMap<string, Selection<Client>>;
  send(client: Client, frame: string | Buffer): void;
  push(client: Client, event: string, payloadJson: string): void;
}

/** The `system` rows: to each socket as it joins, and to every joined socket each interval. */
export class SystemPush {
  private timer: unknown = null;

  constructor(private readonly options: SystemPushOptions) {}

  start(): void {
    this.timer = this.options.timers.setTimeout(() => {
      this.start();
      void this.broadcast();
    }, this.options.intervalMs);
  }

  stop(): void {
    this.options.timers.clearTimeout(this.timer);
  }

  async sendTo(client: Client): Promise<void> {
    try {
      const payload = await this.options.system.payloadJson();
      if (client.selection) this.options.push(client, 'system', payload);
    } catch (err) {
      log.error('building the system rows failed', { err });
    }
  }

  private async broadcast(): Promise<void> {
    const { selections, system } = this.options;
    if (selections.size === 0) return;
    try {
      const push = new SharedPush('system', await system.payloadJson());
      for (const selection of selections.values()) {
        for (const client of selection.clients) this.options.send(client, push.frame(client.form));
      }
    } catch (err) {
      log.error('building the system rows failed', { err });
    }
  }
}
