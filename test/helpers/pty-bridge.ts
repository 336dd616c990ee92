/*
 * A pseudo-terminal wired to a TCP emulator by socat, so a driver's `serial` connection is
 * tested through the real serialport binding. Without socat the caller skips with one loud
 * line, or fails when HELIOGRAPH_REQUIRE_SOCAT=1 (CI sets it).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { after } from 'node:test';

const SOCAT = ['/usr/bin/socat', '/usr/local/bin/socat'].find((path) => existsSync(path));

/** Why serial tests are skipped, or false when socat is there. */
export const SOCAT_SKIP: string | false = (() => {
  if (SOCAT) return false;
  const how = 'socat not found: install it with `apt-get install -y socat`';
  if (process.env.HELIOGRAPH_REQUIRE_SOCAT === '1')
    throw new Error(`${how} (HELIOGRAPH_REQUIRE_SOCAT=1, so this is a failure, not a skip)`);
  process.stderr.write(`\n*** SERIAL DRIVER TESTS SKIPPED: ${how} ***\n\n`);
  return how;
})();

/** Opens a pty whose bytes socat carries to `host:port`; returns its path. Closed after the test file. */
export async function ptyToTcp(host: string, port: number): Promise<string> {
  if (!SOCAT) throw new Error(SOCAT_SKIP || 'no socat');
  const child = spawn(SOCAT, ['-d', '-d', 'pty,raw,echo=0', `tcp:${host}:${port}`], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  after(async () => {
    if (child.exitCode !== null) return;
    child.kill('SIGTERM');
    await once(child, 'exit');
  });
  // socat -d -d logs "PTY is /dev/pts/7" once the pty is open.
  for await (const line of createInterface({ input: child.stderr })) {
    const pty = / PTY is (\S+)/.exec(line);
    if (pty) return pty[1]!;
  }
  throw new Error('socat exited without opening a pty');
}
