import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { ConfigError } from './load.js';

/**
 * Writes `changes` (section -> key -> value) into the user config file, keeping every other
 * key the file holds (`$schema`, history, auth...). Atomic: the new text goes to a temporary
 * file that is flushed to disk and renamed over the old one, so a power cut leaves the old
 * file or the new one, never half of either.
 */
export function saveConfigChanges(file: string, changes: Record<string, Record<string, unknown>>): void {
  let current: Record<string, unknown> = {};
  if (existsSync(file)) {
    try {
      const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
      if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed))
        current = parsed as Record<string, unknown>;
    } catch (err) {
      throw new ConfigError(
        `${file}: not valid JSON, so it was not overwritten (fix or remove it): ${(err as Error).message}`,
      );
    }
  }
  const next: Record<string, unknown> = { ...current };
  for (const [section, values] of Object.entries(changes)) {
    const before = next[section];
    next[section] = {
      ...(before !== null && typeof before === 'object' && !Array.isArray(before) ? before : {}),
      ...values,
    };
  }
  writeFileAtomic(file, JSON.stringify(next, null, 2) + '\n');
}

function writeFileAtomic(file: string, text: string): void {
  const tmp = `${file}.tmp`;
  const fd = openSync(tmp, 'w');
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
}
