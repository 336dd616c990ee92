import { createLogger } from '../../log.js';
import type { SystemInfo } from '../../system/info.js';
import type { Client, HubOutlets } from './client.js';
import { SharedPush } from './protocol.js';
import type { Timers } from './timers.js';

const log = createLogger('websocket');

/** Joined sockets (the hub's selections) get the rows. */
export interface SystemPushOptions extends HubOutlets {
  system: SystemInfo;
  timers: Timers;
  intervalMs: number;
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
