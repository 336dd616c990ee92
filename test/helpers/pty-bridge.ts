/*
 * A serial port whose other end is a TCP device: socat links a pseudo-terminal to an
 * emulator's TCP port, so a driver opens a real serial device (through the native
 * serialport binding) and talks to the emulator. Without socat the tests that need one are
 * skipped with one loud line, or fail when HELIOGRAPH_REQUIRE_SOCAT=1 (CI sets it).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after } from 'node:test';
import { within } from './deadline.js';
import { requireProgram } from './programs.js';
import { tempDir } from './server.js';

const SOCAT = ['/usr/bin/socat', '/usr/local/bin/socat'].find((path) => existsSync(path));

/** Why serial tests are skipped, or false (requireProgram: a loud line, or a failure in CI). */
export const SOCAT_SKIP: string | false =
  requireProgram({ name: 'socat', found: SOCAT !== undefined, install: 'apt-get install -y socat' }) ?? false;

/**
 * The path of a pty bridged to `127.0.0.1:port`; socat ends when the test file does.
 *
 * @example
 * const path = await serialBridge(emulator.port); // { type: 'serial', path, baudRate: 2400 }
 */
export async function serialBridge(port: number): Promise<string> {
  if (!SOCAT) throw new Error(SOCAT_SKIP || 'no socat');
  const path = join(tempDir('heliograph-pty-'), 'tty');
  const child = spawn(SOCAT, ['-d', '-d', `pty,raw,echo=0,link=${path}`, `tcp:127.0.0.1:${port}`], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  after(async () => {
    if (child.exitCode !== null) return;
    child.kill('SIGTERM');
    await within(once(child, 'exit'), 'socat to exit after SIGTERM');
  });
  // socat -d -d logs "starting data transfer loop" once both ends are open.
  const bridged = async () => {
    for await (const line of createInterface({ input: child.stderr })) {
      if (/starting data transfer loop/.test(line)) return path;
    }
    throw new Error(`socat ended before bridging ${path} to port ${port}`);
  };
  return within(bridged(), `socat bridging ${path} to port ${port}`);
}
