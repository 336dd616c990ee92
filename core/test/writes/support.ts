import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Clock } from '../../src/clock.js';
import { migrate, openDatabase, type Db } from '../../src/db.js';
import { DbWriter } from '../../src/db-writer.js';
import { AuditLog, auditMigrations } from '../../src/writes/audit.js';

/** The audit log of a write test, in a real SQLite file in a fresh folder. */
export interface TempAudit {
  db: Db;
  audit: AuditLog;
  /** Closes the audit and the database and removes the folder. */
  close: () => Promise<void>;
}

export async function tempAudit(clock: Clock, prefix: string): Promise<TempAudit> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const db = await openDatabase(join(dir, 'heliograph.db'));
  await migrate(db, auditMigrations);
  const audit = new AuditLog(db, clock, new DbWriter());
  return {
    db,
    audit,
    close: async () => {
      audit.close();
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
