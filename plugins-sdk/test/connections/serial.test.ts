import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { SerialPort, SerialPortMock } from 'serialport';
import { NoAnswerError } from '../../src/errors.js';
import { ModbusExceptionError, openModbus, openStreamLink } from '../../src/connections/index.js';
import { rtuRequestLength } from '../../src/connections/modbus-frames.js';
import { within } from './deadline.js';
import { FakeModbusDevice, rtuServer } from './fake-device.js';
import { openPtyPair, SOCAT_SKIP } from './pty-pair.js';

/** `MockBinding` of @serialport/binding-mock (its own typings do not resolve under nodenext). */
const MockBinding = SerialPortMock.binding;

/**
 * The mock binding, with a device that answers each frame the client writes: `answer`
 * returns the reply bytes, or undefined for silence.
 */
function answeringBinding(answer: (request: Buffer) => Buffer | undefined): typeof MockBinding {
  return {
    ...MockBinding,
    async open(options) {
      const port = await MockBinding.open(options);
      const write = port.write.bind(port);
      port.write = async (buffer: Buffer) => {
        await write(buffer);
        const reply = answer(buffer);
        if (reply) port.emitData(reply);
      };
      return port;
    },
  };
}

describe('serial links on the serialport mock binding', () => {
  after(() => MockBinding.reset());

  test('Modbus RTU over a serial port: reads, exceptions, silence', async () => {
    MockBinding.createPort('/dev/ttyMOCK0', { echo: false, record: true });
    const device = new FakeModbusDevice([3]);
    device.holding.set(10, 1234);
    const binding = answeringBinding((request) => rtuServer.reply(device, request));
    const modbus = openModbus({ type: 'serial', path: '/dev/ttyMOCK0', baudRate: 9600 }, { binding, timeoutMs: 100 });
    try {
      assert.deepEqual(await modbus.readHoldingRegisters({ unitId: 3, address: 10, count: 1 }), [1234]);
      await assert.rejects(modbus.readHoldingRegisters({ unitId: 3, address: 11, count: 1 }), ModbusExceptionError);
      // Unit 4 is not on the bus: nobody answers.
      await assert.rejects(modbus.readHoldingRegisters({ unitId: 4, address: 10, count: 1 }), NoAnswerError);
    } finally {
      modbus.release();
    }
  });

  test('an ASCII protocol through openStreamLink, shared by two users of one port', async () => {
    MockBinding.createPort('/dev/ttyMOCK1', { echo: false, record: true });
    // A device answering each command line with "(" + the command, in two chunks.
    const binding = answeringBinding((request) => Buffer.from(`(${request.toString('latin1')}`));
    const first = openStreamLink({ type: 'serial', path: '/dev/ttyMOCK1', baudRate: 2400 }, { binding });
    const second = openStreamLink({ type: 'serial', path: '/dev/ttyMOCK1', baudRate: 2400 });
    try {
      assert.equal(first.stats, second.stats, 'one port, one link');
      const untilCr = (buf: Buffer) => buf.indexOf(0x0d) + 1 || -1;
      const replies = await Promise.all(
        ['QPIGS\r', 'QMOD\r', 'QPIRI\r'].map((command, i) =>
          (i % 2 ? second : first).request(Buffer.from(command), { complete: untilCr, timeoutMs: 500 }),
        ),
      );
      assert.deepEqual(
        replies.map((r) => r.toString()),
        ['(QPIGS\r', '(QMOD\r', '(QPIRI\r'],
      );
      assert.throws(
        () => openStreamLink({ type: 'serial', path: '/dev/ttyMOCK1', baudRate: 9600 }),
        /already open with other settings/,
      );
    } finally {
      first.release();
      second.release();
    }
  });
});

describe('Modbus RTU through a real pseudo-terminal pair (socat)', { skip: SOCAT_SKIP }, () => {
  test('reads and writes through the native serialport binding', async () => {
    const pty = await openPtyPair();
    const device = new FakeModbusDevice([1]);
    device.holding.set(40, 7);
    // The device end: a real serial port answering RTU requests.
    const devicePort = new SerialPort({ path: pty.b, baudRate: 19200 });
    let buffer = Buffer.alloc(0);
    devicePort.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      for (let n = rtuRequestLength(buffer); n > 0; n = rtuRequestLength(buffer)) {
        const reply = rtuServer.reply(device, buffer.subarray(0, n));
        buffer = buffer.subarray(n);
        if (reply) devicePort.write(reply);
      }
    });
    const modbus = openModbus({ type: 'serial', path: pty.a, baudRate: 19200 }, { timeoutMs: 2000 });
    try {
      assert.deepEqual(await modbus.readHoldingRegisters({ unitId: 1, address: 40, count: 1 }), [7]);
      await modbus.writeRegisters({ unitId: 1, address: 40, values: [8] });
      assert.deepEqual(await modbus.readHoldingRegisters({ unitId: 1, address: 40, count: 1 }), [8]);
    } finally {
      modbus.release();
      await new Promise((resolve) => devicePort.close(resolve));
      await pty.close();
    }
  });

  test('a port that hangs up (its far end gone, as an unplugged USB adapter) is closed, reported and opened again when it returns', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'heliograph-hangup-'));
    const links = { a: join(dir, 'driver'), b: join(dir, 'device') };
    // The device end: answers each command line with "(" + the command.
    const answering = (path: string) => {
      const port = new SerialPort({ path, baudRate: 2400 });
      port.on('data', (chunk: Buffer) => port.write(Buffer.from(`(${chunk.toString('latin1')}`)));
      return port;
    };
    const untilCr = (buf: Buffer) => buf.indexOf(0x0d) + 1 || -1;
    let pty = await openPtyPair(links);
    let device = answering(pty.b);
    const link = openStreamLink(
      { type: 'serial', path: links.a, baudRate: 2400 },
      { reconnect: { initialDelayMs: 50, maxDelayMs: 200 } },
    );
    const reasons: string[] = [];
    const disconnected = new Promise<void>((resolve) =>
      link.on('disconnect', (reason) => resolve(void reasons.push(reason))),
    );
    try {
      const ask = () => link.request(Buffer.from('QMOD\r'), { complete: untilCr, timeoutMs: 2000 });
      assert.equal((await ask()).toString(), '(QMOD\r');
      // socat ends: Linux hangs up both ptys, and every read of a hung-up tty returns 0 bytes.
      await pty.close();
      await within(disconnected, 'the link to report the hang-up', 5000);
      assert.match(reasons[0]!, /hung up/);
      assert.equal(link.connected, false);
      await new Promise((resolve) => device.close(resolve));
      pty = await openPtyPair(links);
      device = answering(pty.b);
      assert.equal((await retryFor(ask, 5000, 'an answer through the port opened again')).toString(), '(QMOD\r');
      assert.ok(link.stats.reconnects >= 1, 'the port was opened again');
    } finally {
      link.release();
      if (device.isOpen) await new Promise((resolve) => device.close(resolve));
      await pty.close();
    }
  });
});

/** `attempt()` again after each failure (a port still being reopened) until it succeeds; gives up after `ms`. */
async function retryFor<T>(attempt: () => Promise<T>, ms: number, what: string): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`waited ${ms} ms for ${what}`, { cause: error });
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
