/*
 * The OCPP 1.6J central system: ocpp-rpc's RPCServer (the OCPP-J framing, with every message
 * checked against the specification's JSON schemas in strict mode) behind HTTP Basic
 * authentication per charger (OCPP 1.6 security whitepaper, profile 1: the username is the
 * charge point id, the password the one configured for it). Unknown ids and wrong passwords
 * are answered 401 on the upgrade, before any WebSocket exists.
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { RPCServer } from './rpc.js';
import type { ChargerDevice } from './charger-device.js';
import type { RpcPeer } from './charger-link.js';

export class CentralSystem {
  private readonly rpc: RPCServer;
  private readonly byId = new Map<string, ChargerDevice>();

  constructor(
    chargers: readonly ChargerDevice[],
    private readonly options: { path: string; log: { info(message: string): void; warn(message: string): void } },
  ) {
    for (const charger of chargers) this.byId.set(charger.charger.chargePointId, charger);
    // pingIntervalMs: WebSocket pings find a dead TCP link the charger's heartbeats may be too rare for.
    this.rpc = new RPCServer({ protocols: ['ocpp1.6'], strictMode: true, pingIntervalMs: 30_000 });
    this.rpc.auth((accept, reject, handshake) => {
      const charger = this.byId.get(handshake.identity);
      const who = `charge point "${handshake.identity}" from ${handshake.remoteAddress ?? 'unknown'}`;
      if (handshake.endpoint !== options.path || !charger) {
        options.log.warn(`refused ${who}: no charger with this id is configured at ${options.path}`);
        return reject(401, 'Unauthorized');
      }
      if (!samePassword(handshake.password, charger.charger.password)) {
        options.log.warn(`refused ${who}: ${handshake.password ? 'wrong password' : 'no HTTP Basic password'}`);
        return reject(401, 'Unauthorized');
      }
      if (!handshake.protocols.has('ocpp1.6')) {
        options.log.warn(`refused ${who}: it does not offer the ocpp1.6 subprotocol`);
        return reject(400, 'Bad Request: the subprotocol ocpp1.6 is required');
      }
      accept({ chargePointId: handshake.identity }, 'ocpp1.6');
    });
    this.rpc.on('client', (client: RpcPeer) => {
      const charger = this.byId.get(client.identity);
      if (!charger) return void client.close({ code: 1008, reason: 'unknown charge point' });
      options.log.info(`charge point "${client.identity}" connected`);
      charger.link.attach(client);
    });
  }

  /** Node's `upgrade` arguments for a path under the plugin's prefix. */
  readonly handleUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer): void => {
    void this.rpc.handleUpgrade(request, socket as Parameters<RPCServer['handleUpgrade']>[1], head);
  };

  /** A port of the plugin's own (config `port`) instead of the service's. */
  async listen(port: number, host: string): Promise<void> {
    await this.rpc.listen(port, host);
  }

  /** A listener on loopback at a free port (the demo's charge point in this process); resolves with the port. */
  async listenLoopback(): Promise<number> {
    const server = await this.rpc.listen(0, '127.0.0.1');
    return (server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    await this.rpc.close({ code: 1001, reason: 'Heliograph is stopping' });
  }
}

function samePassword(sent: Buffer | undefined, expected: string): boolean {
  if (!sent) return false;
  const want = Buffer.from(expected, 'utf8');
  return sent.length === want.length && timingSafeEqual(sent, want);
}
