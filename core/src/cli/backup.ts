/** `heliograph backup FILE`: a consistent copy of the data directory, also of a running service. */
import { join, resolve } from 'node:path';
import { writeBackup } from '../backup/write.js';
import { fileAndLocations } from './command.js';

export async function runBackupCommand(argv: string[]): Promise<number> {
  const { file, where } = fileAndLocations(argv, 'name the one file to write, e.g. heliograph-backup.db');
  // The backup holds the password hash, tokens and API keys: readable by this user only.
  process.umask(0o077);
  const written = await writeBackup({
    dataDir: where.dataDir,
    pluginsFile: where.pluginsFile ?? join(where.dataDir, 'plugins.json'),
    target: resolve(file),
    now: Date.now(),
  });
  const mb = (written.size / 1e6).toFixed(1);
  process.stderr.write(
    `backup written: ${written.target} (${mb} MB: the database, ${written.files.join(', ') || 'no other files'})\n`,
  );
  return 0;
}
