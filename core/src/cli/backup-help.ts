/** The help texts of `backup` and `restore`, kept apart so the command table loads neither. */
import { DATA_HELP } from './command.js';

export const BACKUP_HELP = `Usage: heliograph backup FILE [--data DIR] [--config FILE]

Writes a consistent copy of the data directory to FILE (created readable by you only):
the database (password hash, tokens, history, audit, settings) taken with SQLite's online
backup, so the service may keep running, plus the plugin setup, the user config and the
site id. FILE must not exist yet.

${DATA_HELP}`;

export const RESTORE_HELP = `Usage: heliograph restore FILE [--data DIR] [--config FILE]

Checks FILE (a file written by \`heliograph backup\`: SQLite's integrity check, a schema
this version knows) and puts it back into the data directory. Stop the service first
(systemctl stop heliograph); restore refuses while one is running on the data directory.
What it replaces is kept beside it as <name>.before-restore-<time>.

${DATA_HELP}`;
