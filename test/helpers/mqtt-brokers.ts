/*
 * MQTT brokers for the bridge's tests: aedes in-process, and a real Mosquitto (the Debian
 * package) in a child process when it is installed. Both listen on a loopback port that
 * survives a restart, so the bridge reconnects to the same address.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { EventEmitter, once } from 'node:events';
import { join } from 'node:path';
import { Aedes, type Client } from 'aedes';
import mqtt, { type MqttClient } from 'mqtt';
import { tempDir } from './server.js';

export interface TestBroker {
  url: string;
  /** Stops the broker: retained messages are lost (neither keeps them on disk). */
  stop(): Promise<void>;
  /** Starts it again on the same port. */
  start(): Promise<void>;
  /** Cuts the bridge's connection as a network failure would, so the broker sends its will; undefined when the broker cannot. */
  dropClient?(clientIdPrefix: string): void;
}

export const MOSQUITTO = '/usr/sbin/mosquitto';

/** A loopback port free right now. */
export async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

export async function startAedes(): Promise<TestBroker> {
  const port = await freePort();
  let broker: Aedes | null = null;
  let server: Server | null = null;
  const clients = new Set<Client>();
  const self: TestBroker = {
    url: `mqtt://127.0.0.1:${port}`,
    async start() {
      broker = await Aedes.createBroker();
      broker.on('client', (client) => clients.add(client));
      broker.on('clientDisconnect', (client) => clients.delete(client));
      server = createServer(broker.handle).listen(port, '127.0.0.1');
      await once(server, 'listening');
    },
    async stop() {
      const s = server!;
      const b = broker!;
      // Open client sockets would hold the server's close up.
      for (const client of clients) client.conn.destroy();
      clients.clear();
      await new Promise<void>((resolve) => s.close(() => resolve()));
      await new Promise<void>((resolve) => b.close(() => resolve()));
    },
    dropClient(prefix) {
      for (const client of clients) if (client.id.startsWith(prefix)) client.conn.destroy();
    },
  };
  await self.start();
  return self;
}

/** Mosquitto on a free port, or null when it is not installed (the caller skips or fails). */
export async function startMosquitto(): Promise<TestBroker | null> {
  if (!existsSync(MOSQUITTO)) return null;
  const port = await freePort();
  const conf = join(tempDir('heliograph-mosquitto-'), 'mosquitto.conf');
  writeFileSync(
    conf,
    [`listener ${port} 127.0.0.1`, 'allow_anonymous true', 'persistence false', 'log_dest stderr', 'log_type all'].join(
      '\n',
    ) + '\n',
  );
  let child: ChildProcess | null = null;
  const self: TestBroker = {
    url: `mqtt://127.0.0.1:${port}`,
    async start() {
      const proc = spawn(MOSQUITTO, ['-c', conf], { stdio: ['ignore', 'ignore', 'pipe'] });
      child = proc;
      let log = '';
      await new Promise<void>((resolve, reject) => {
        proc.stderr.on('data', (chunk: Buffer) => {
          log += chunk.toString();
          if (log.includes('running')) resolve();
        });
        proc.once('exit', (code) => reject(new Error(`mosquitto exited with ${code}: ${log}`)));
      });
    },
    async stop() {
      const proc = child!;
      if (proc.exitCode !== null) return;
      proc.kill('SIGTERM');
      await once(proc, 'exit');
    },
  };
  await self.start();
  return self;
}

/** A client that keeps the last message of every topic it subscribed to, and can wait for one. */
export class Observer {
  readonly last = new Map<string, { payload: string; retain: boolean }>();
  readonly all: Array<{ topic: string; payload: string }> = [];
  private readonly events = new EventEmitter();
  private constructor(readonly client: MqttClient) {
    client.on('message', (topic, payload, packet) => {
      const text = payload.toString('utf8');
      this.last.set(topic, { payload: text, retain: packet.retain });
      this.all.push({ topic, payload: text });
      this.events.emit('message');
    });
  }

  static async connect(url: string, topics: string[]): Promise<Observer> {
    const client = await mqtt.connectAsync(url, { reconnectPeriod: 200, clientId: `observer_${Math.random()}` });
    const observer = new Observer(client);
    await client.subscribeAsync(topics, { qos: 1 });
    return observer;
  }

  /** Resolves with the payload once `topic`'s last message satisfies `predicate` (at once if it already does). */
  waitFor(topic: string, predicate: (payload: string) => boolean = () => true): Promise<string> {
    return new Promise((resolve) => {
      const check = () => {
        const seen = this.last.get(topic);
        if (seen && predicate(seen.payload)) {
          this.events.off('message', check);
          resolve(seen.payload);
        }
      };
      this.events.on('message', check);
      check();
    });
  }

  close(): Promise<void> {
    return this.client.endAsync(true);
  }
}
