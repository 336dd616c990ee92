import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { DeviceRefusedError, NoAnswerError } from '../../src/errors.js';
import { ModbusExceptionError, openModbus } from '../../src/connections/index.js';
import type { ConnectionInput } from '../../src/connections/spec.js';
import type { StreamLink } from '../../src/connections/registry.js';
import {
  corruptLastByte,
  FakeModbusDevice,
  FakeTcpDevice,
  mbapServer,
  rtuServer,
  solarmanServer,
  type ServerFraming,
} from './fake-device.js';

const LOGGER = 2712345678;

/** One case per framing over TCP: the same behaviour is expected of each. */
const framings: Array<{
  name: string;
  server: () => ServerFraming;
  spec: (port: number) => ConnectionInput;
  /** A bad copy of a good reply: a CRC or checksum mismatch, or (TCP has no CRC) another transaction id. */
  corrupt: (reply: Buffer) => Buffer;
}> = [
  {
    name: 'Modbus TCP',
    server: () => mbapServer,
    spec: (port) => ({ type: 'tcp', host: '127.0.0.1', port }),
    corrupt: (reply) => Buffer.concat([Buffer.from([reply[0]! ^ 0xff, reply[1]!]), reply.subarray(2)]),
  },
  {
    name: 'RTU over TCP',
    server: () => rtuServer,
    spec: (port) => ({ type: 'rtu-over-tcp', host: '127.0.0.1', port }),
    corrupt: corruptLastByte,
  },
  {
    name: 'Solarman V5',
    server: () => solarmanServer(LOGGER),
    spec: (port) => ({ type: 'solarman', host: '127.0.0.1', port, loggerSerial: LOGGER }),
    corrupt: corruptChecksum,
  },
];

/** A Solarman frame whose checksum (the byte before the end byte) is wrong. */
function corruptChecksum(frame: Buffer): Buffer {
  const copy = Buffer.from(frame);
  copy[copy.length - 2] = copy[copy.length - 2]! ^ 0xff;
  return copy;
}

const cleanups: Array<() => unknown> = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

function nextEvent(link: StreamLink, event: 'connect' | 'disconnect'): Promise<void> {
  return new Promise((resolve) => {
    const off = link.on(event, () => {
      off();
      resolve();
    });
  });
}

async function setUp(framing: (typeof framings)[number], device = new FakeModbusDevice()) {
  const fake = await new FakeTcpDevice(framing.server(), device).start();
  const modbus = openModbus(framing.spec(fake.port), {
    timeoutMs: 300,
    reconnect: { initialDelayMs: 20, maxDelayMs: 200 },
  });
  cleanups.push(
    () => modbus.release(),
    () => fake.stop(),
  );
  return { fake, modbus, device };
}

for (const framing of framings) {
  describe(`openModbus over ${framing.name}`, () => {
    test('reads holding and input registers and writes registers', async () => {
      const { modbus, device } = await setUp(framing);
      [100, 101, 102].forEach((address, i) => device.holding.set(address, 10 + i));
      device.input.set(7, 0xbeef);
      assert.deepEqual(await modbus.readHoldingRegisters({ unitId: 1, address: 100, count: 3 }), [10, 11, 12]);
      assert.deepEqual(await modbus.readInputRegisters({ unitId: 1, address: 7, count: 1 }), [0xbeef]);
      await modbus.writeRegisters({ unitId: 1, address: 101, values: [500, 501] });
      assert.deepEqual([device.holding.get(101), device.holding.get(102)], [500, 501]);
    });

    test('a Modbus exception is a refusal with its code, not a missing answer', async () => {
      const { modbus, device } = await setUp(framing);
      device.holding.set(5, 1);
      device.readOnly.add(5);
      await assert.rejects(modbus.readHoldingRegisters({ unitId: 1, address: 900, count: 2 }), (error: unknown) => {
        assert.ok(error instanceof ModbusExceptionError && error instanceof DeviceRefusedError);
        assert.equal(error.code, 2);
        assert.match(error.answer, /illegal data address/);
        return true;
      });
      await assert.rejects(modbus.writeRegisters({ unitId: 1, address: 5, values: [2] }), { code: 3 });
    });

    test("a gateway's 0x0A/0x0B for the unit behind it is NoAnswerError, not a refusal", async () => {
      const { modbus, device } = await setUp(framing);
      for (const code of [0x0a, 0x0b]) {
        device.gatewayException = code;
        await assert.rejects(modbus.readHoldingRegisters({ unitId: 1, address: 1, count: 1 }), (error: unknown) => {
          assert.ok(error instanceof NoAnswerError && !(error instanceof DeviceRefusedError));
          assert.match(error.message, /unit 1 did not answer \(.*gateway/i);
          return true;
        });
      }
    });

    test('a device that does not answer is NoAnswerError with the timeout', async () => {
      const { modbus, device } = await setUp(framing);
      device.holding.set(1, 1);
      device.silent = true;
      await assert.rejects(
        modbus.readHoldingRegisters({ unitId: 1, address: 1, count: 1, timeoutMs: 100 }),
        (error: unknown) => {
          assert.ok(error instanceof NoAnswerError && !(error instanceof DeviceRefusedError));
          assert.equal(error.timeoutMs, framing.name === 'Solarman V5' ? undefined : 100);
          return true;
        },
      );
      device.silent = false;
      assert.deepEqual(await modbus.readHoldingRegisters({ unitId: 1, address: 1, count: 1 }), [1]);
    });

    test('a corrupt frame is counted and skipped, and the good reply after it is taken', async () => {
      const { modbus, device, fake } = await setUp(framing);
      device.holding.set(3, 33);
      fake.tamper.push((reply) => Buffer.concat([framing.corrupt(reply), reply]));
      assert.deepEqual(await modbus.readHoldingRegisters({ unitId: 1, address: 3, count: 1 }), [33]);
      assert.equal(modbus.link.stats.badFrames, 1);
    });

    test('an aborted request rejects with the abort reason and the link goes on', async () => {
      const { modbus, device, fake } = await setUp(framing);
      device.holding.set(9, 99);
      device.holding.set(10, 10);
      assert.deepEqual(await modbus.readHoldingRegisters({ unitId: 1, address: 10, count: 1 }), [10]); // connected
      fake.replyDelayMs = 50;
      const controller = new AbortController();
      const read = modbus.readHoldingRegisters({ unitId: 1, address: 9, count: 1, signal: controller.signal });
      controller.abort(new Error('plugin stopping'));
      await assert.rejects(read, /plugin stopping/);
      assert.equal(modbus.link.stats.requests, 2, 'the aborted read was on the wire');
      device.holding.set(9, 100);
      const next = await modbus.readHoldingRegisters({ unitId: 1, address: 9, count: 1 });
      if (framing.name === 'RTU over TCP') {
        // RTU has no transaction id: a late reply of the same shape cannot be told apart.
        assert.equal(next.length, 1);
      } else {
        assert.deepEqual(next, [100], 'the late reply to the aborted read is not taken for the next one');
        assert.equal(modbus.link.stats.badFrames, 1);
      }
    });
  });
}

describe('openModbus connections', () => {
  test('reconnects after the server restarts on the same port', async () => {
    const { modbus, device, fake } = await setUp(framings[0]!);
    device.holding.set(0, 42);
    assert.deepEqual(await modbus.readHoldingRegisters({ unitId: 1, address: 0, count: 1 }), [42]);
    const lost = nextEvent(modbus.link, 'disconnect');
    await fake.stop();
    await lost;
    await assert.rejects(
      modbus.readHoldingRegisters({ unitId: 1, address: 0, count: 1, timeoutMs: 50 }),
      NoAnswerError,
    );
    const back = nextEvent(modbus.link, 'connect');
    await fake.start(fake.port);
    await back;
    assert.deepEqual(await modbus.readHoldingRegisters({ unitId: 1, address: 0, count: 1 }), [42]);
    assert.equal(modbus.link.stats.reconnects, 1);
  });

  test('two users of one gateway share one link and never interleave requests on the wire', async () => {
    const device = new FakeModbusDevice([1, 2]);
    const { modbus: first, fake } = await setUp(framings[1]!, device);
    const second = openModbus({ type: 'rtu-over-tcp', host: '127.0.0.1', port: fake.port });
    cleanups.push(() => second.release());
    assert.equal(second.link.stats, first.link.stats, 'one link, one set of counters');
    for (let a = 0; a < 10; a++) device.holding.set(a, a);
    fake.replyDelayMs = 5;
    const reads: Array<Promise<number[]>> = [];
    for (let a = 0; a < 10; a++) {
      const [client, unitId] = a % 2 ? [first, 1] : [second, 2];
      reads.push(client.readHoldingRegisters({ unitId, address: a, count: 1 }));
    }
    assert.deepEqual(
      await Promise.all(reads),
      Array.from({ length: 10 }, (_, a) => [a]),
    );
    assert.equal(fake.interleaved, 0);
    assert.deepEqual(
      device.served.map((s) => s.unitId),
      Array.from({ length: 10 }, (_, a) => (a % 2 ? 1 : 2)),
    );
    first.release();
    // The link stays open for the second user.
    assert.deepEqual(await second.readHoldingRegisters({ unitId: 2, address: 4, count: 1 }), [4]);
  });
});
