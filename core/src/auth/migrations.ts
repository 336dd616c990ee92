/* The auth tables: the password's hash and the bearer tokens (sha256 of their secrets). */
import type { Migration } from '../db.js';

export const authMigrations: Migration[] = [
  {
    id: 'auth:1',
    sql: `CREATE TABLE auth_password (
      id INTEGER PRIMARY KEY CHECK (id = 1),
      hash TEXT NOT NULL,
      updated_at INTEGER NOT NULL
    );
    CREATE TABLE auth_tokens (
      id TEXT PRIMARY KEY,
      name TEXT NOT NULL UNIQUE,
      secret_hash BLOB NOT NULL UNIQUE,
      created_at INTEGER NOT NULL,
      expires_at INTEGER
    );`,
  },
  {
    // Tokens made before scopes existed could do everything; they keep doing so.
    id: 'auth:2',
    sql: `ALTER TABLE auth_tokens ADD COLUMN scope TEXT NOT NULL DEFAULT 'admin';`,
  },
  {
    // Sign-in tokens (the settings page's) expire after an idle time instead of piling up.
    id: 'auth:3',
    sql: `ALTER TABLE auth_tokens ADD COLUMN idle_expiry INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE auth_tokens ADD COLUMN last_used_at INTEGER;`,
  },
];
