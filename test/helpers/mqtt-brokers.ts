/*
 * MQTT brokers for the bridge's tests: aedes in-process, and a real Mosquitto (the Debian
 * package) in a child process when it is installed. Both listen on a loopback port that
 * survives a restart, so the bridge reconnects to the same address.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { EventEmitter, once } from 'node:events';
import { join } from 'node:path';
import { after } from 'node:test';
import { Aedes, type Client } from 'aedes';
import mqtt, { type MqttClient } from 'mqtt';
import { within } from './deadline.js';
import { tempDir } from './server.js';

export interface TestBroker {
  url: string;
  /** Stops the broker: retained messages are lost (neither keeps them on disk). */
  stop(): Promise<void>;
  /** Starts it again on the same port. */
  start(): Promise<void>;
  /** Cuts the connections of clients whose id starts with the prefix as a network failure would, so the broker sends their wills. */
  dropClient(clientIdPrefix: string): void;
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

/**
 * Mosquitto on a free port, or null when it is not installed (the caller skips or fails).
 * Clients reach it through a loopback TCP relay (`relay` below), so a test can cut one
 * client's connection as a network failure would, which mosquitto answers with the will.
 */
export async function startMosquitto(): Promise<TestBroker | null> {
  if (!existsSync(MOSQUITTO)) return null;
  const port = await freePort();
  const brokerPort = await freePort();
  const conf = join(tempDir('heliograph-mosquitto-'), 'mosquitto.conf');
  writeFileSync(
    conf,
    [
      `listener ${brokerPort} 127.0.0.1`,
      'allow_anonymous true',
      'persistence false',
      'log_dest stderr',
      'log_type all',
    ].join('\n') + '\n',
  );
  const connections = relay(port, brokerPort);
  await once(connections.server, 'listening');
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
      await within(once(proc, 'exit'), 'mosquitto to exit after SIGTERM');
    },
    dropClient(prefix) {
      connections.drop(prefix);
    },
  };
  after(() => connections.close());
  await self.start();
  return self;
}

/**
 * A TCP relay from `port` to `target` on loopback. `drop(prefix)` cuts every connection whose
 * MQTT CONNECT packet names a client id starting with `prefix` (the id is in its first
 * bytes), both ways at once, as a failed network would.
 */
function relay(port: number, target: number): { server: Server; drop(prefix: string): void; close(): Promise<void> } {
  const open = new Set<{ client: Socket; upstream: Socket; hello: string }>();
  const server = createServer((client) => {
    const upstream = connect(target, '127.0.0.1');
    const pair = { client, upstream, hello: '' };
    open.add(pair);
    client.on('data', (chunk: Buffer) => {
      if (pair.hello.length < 256) pair.hello += chunk.toString('latin1');
    });
    client.pipe(upstream).pipe(client);
    const close = () => {
      open.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('close', close).on('error', close);
    upstream.on('close', close).on('error', close);
  }).listen(port, '127.0.0.1');
  return {
    server,
    drop(prefix) {
      for (const pair of open) if (pair.hello.includes(prefix)) pair.upstream.destroy();
    },
    close() {
      for (const pair of open) pair.upstream.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
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
