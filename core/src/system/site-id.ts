import { randomInt } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The file in the data directory that holds the unit's identity. */
export const SITE_ID_FILE = 'site-id';

/** Largest id: fits a signed 32-bit integer, so every client (Go, Python, Home Assistant) holds it as is. */
const MAX_SITE_ID = 2 ** 31 - 1;

/**
 * The unit's `system/site_id`: a positive integer chosen at the first start and kept in the
 * data directory for ever. Home Assistant stores it as the unit's identity and finds the unit
 * again by it (mDNS TXT record) after its IP address changes, so it must never change by
 * itself: a damaged file stops the start with what to do rather than picking a new id.
 */
export function loadSiteId(dataDir: string): number {
  const file = join(dataDir, SITE_ID_FILE);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT')
      throw new Error(`cannot read the site id from ${file}: ${(err as Error).message}`, { cause: err });
    return createSiteId(file);
  }
  const id = Number(text.trim());
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(id) || id < 1) {
    throw new Error(
      `${file} should hold the unit's site id (a positive whole number) but holds ${JSON.stringify(text.slice(0, 40))}; ` +
        'restore it from a backup, or delete it to choose a new id (Home Assistant will then see a new unit)',
    );
  }
  return id;
}

function createSiteId(file: string): number {
  const id = randomInt(1, MAX_SITE_ID + 1);
  // Written whole or not at all: a crash mid-write must not leave a half id behind.
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${id}\n`, { flag: 'wx' });
  renameSync(temp, file);
  return id;
}
