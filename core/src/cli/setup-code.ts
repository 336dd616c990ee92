/**
 * `heliograph setup-code`: prints the setup code of the running service (from
 * `<data>/setup-code`, which the service writes at a start without a password and deletes
 * once one is set), so an owner with a shell on the device need not search the log.
 * Exit 1 with the reason when there is none.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export function runSetupCode(dataDir: string, out: (line: string) => void = console.log): number {
  let code: string;
  try {
    code = readFileSync(join(dataDir, 'setup-code'), 'utf8').trim();
  } catch {
    out(
      `no setup code in ${dataDir}: a password is already set (change it with "heliograph password set"), or the service has not started yet`,
    );
    return 1;
  }
  out(code);
  return 0;
}
