/*
 * A pair of connected pseudo-terminals from socat, for serial tests through the real
 * serialport binding. Without socat the tests that need one are skipped with one loud line,
 * or fail when HELIOGRAPH_REQUIRE_SOCAT is set (CI sets it).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { within } from './deadline.js';

const SOCAT = ['/usr/bin/socat', '/usr/local/bin/socat'].find((path) => existsSync(path));

/** Why the pty tests are skipped, or false. */
export const SOCAT_SKIP: string | false = (() => {
  if (SOCAT) return false;
  const how = 'socat not found: install it with `apt-get install -y socat`';
  if (process.env.HELIOGRAPH_REQUIRE_SOCAT === '1') {
    throw new Error(`${how} (HELIOGRAPH_REQUIRE_SOCAT=1, so this is a failure, not a skip)`);
  }
  process.stderr.write(`\n*** SERIAL PTY TESTS SKIPPED: ${how} ***\n\n`);
  return how;
})();

/**
 * Two pty paths wired to each other; `close()` ends socat, which hangs up both ends (as
 * unplugging a USB adapter does). With `links`, each end is also reachable at that fixed
 * path, so a pair opened again later is found where the first one was.
 */
export async function openPtyPair(links?: {
  a: string;
  b: string;
}): Promise<{ a: string; b: string; close(): Promise<void> }> {
  if (!SOCAT) throw new Error(SOCAT_SKIP || 'no socat');
  const end = (link?: string) => `pty,raw,echo=0${link ? `,link=${link}` : ''}`;
  const child: ChildProcess = spawn(SOCAT, ['-d', '-d', end(links?.a), end(links?.b)], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const paths: string[] = [];
  // socat -d -d logs "N PTY is /dev/pts/7" for each end, then "starting data transfer loop".
  const opened = async () => {
    for await (const line of createInterface({ input: child.stderr! })) {
      const pty = / PTY is (\S+)/.exec(line);
      if (pty) paths.push(pty[1]!);
      if (/starting data transfer loop/.test(line)) break;
    }
  };
  await within(opened(), 'socat to open a pair of ptys');
  if (paths.length !== 2) throw new Error(`socat did not open two ptys (got ${paths.join(', ') || 'none'})`);
  return {
    a: links?.a ?? paths[0]!,
    b: links?.b ?? paths[1]!,
    async close() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await within(once(child, 'exit'), 'socat to exit after SIGTERM');
    },
  };
}
