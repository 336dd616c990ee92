import { join } from 'node:path';
import { systemClock } from '../clock.js';
import type { Config } from '../config/schema.js';
import { openDatabase } from '../db.js';
import { readNewPassword } from '../auth/password-input.js';
import { AuthService } from '../auth/service.js';

/**
 * `heliograph password set`: reads the new password (twice on a terminal, one line from a
 * pipe) and stores its hash in the data dir's database. A running server sees it at once.
 */
export async function runPasswordCommand(options: { dataDir: string; config: Config }): Promise<number> {
  let password: string;
  try {
    password = await readNewPassword();
  } catch (err) {
    process.stderr.write(`heliograph: ${(err as Error).message}\n`);
    return 1;
  }
  const db = await openDatabase(join(options.dataDir, 'heliograph.db'));
  try {
    const auth = await AuthService.create(db, systemClock, options.config.auth);
    await auth.setPassword(password);
  } catch (err) {
    process.stderr.write(`heliograph: ${(err as Error).message}\n`);
    return 1;
  } finally {
    await db.close();
  }
  process.stderr.write('password set\n');
  return 0;
}
