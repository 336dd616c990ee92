import type { Clock } from '../clock.js';
import { createLogger, errorMessage } from '../log.js';
import type { AuditLog } from '../writes/audit.js';
import { ApiError } from './errors.js';

const log = createLogger('audit');

/** One accepted change of the device's setup (config, a token, a plugin instance). */
export interface SetupChange {
  /** `admin` for the password, else the token's name. */
  who: string;
  /** `config/<section.key>`, `tokens/<name>` or `plugins/<id>`. */
  topic: string;
  /** Before and after as text; secrets already shown as "***". */
  oldValue: string;
  newValue: string;
}

/** Records setup changes in the audit log next to the metric writes (`via: "rest"`). */
export type RecordChange = (change: SetupChange) => Promise<void>;

/**
 * The audit writer for setup changes. A failed audit write is logged, not answered: the
 * change itself has been made and saved by then, and failing the request would invite the
 * user to make it twice.
 */
export function setupAudit(audit: AuditLog, clock: Clock): RecordChange {
  // AuditLog.add resolves once the entry is on disk (retrying a busy database, never
  // rejecting): the answer to the change waits for its entry, as a write's does.
  return (change) => {
    try {
      return audit.add({
        time: clock.now(),
        who: change.who,
        via: 'rest',
        topic: change.topic,
        oldValue: change.oldValue,
        newValue: change.newValue,
        result: 'ok',
        message: null,
      });
    } catch (err) {
      log.error(`could not audit the change of ${change.topic}`, { err });
      return Promise.resolve();
    }
  };
}

/** A change of one thing from one value to another, each shown as {@link auditText} shows it. */
export function recordValueChange(
  record: RecordChange,
  who: string,
  topic: string,
  oldValue: unknown,
  newValue: unknown,
): Promise<void> {
  return record({ who, topic, oldValue: auditText(oldValue), newValue: auditText(newValue) });
}

/**
 * Saves a change of settings (`save` returns what it changed), then audits each setting
 * changed (`config/<key>`) in order, each on disk before the next. A failure to save answers
 * SETTINGS_NOT_SAVED naming `what`.
 */
export async function saveSettingChanges(
  what: string,
  save: () => Iterable<{ key: string; oldValue: unknown; newValue: unknown }>,
  record: RecordChange,
  who: string,
): Promise<void> {
  let changes;
  try {
    changes = save();
  } catch (err) {
    throw new ApiError(
      'SETTINGS_NOT_SAVED',
      `${what} could not be saved, so nothing was changed: ${errorMessage(err)}`,
    );
  }
  for (const change of changes)
    await recordValueChange(record, who, `config/${change.key}`, change.oldValue, change.newValue);
}

/** A value as the audit log shows it: strings as they are, anything else as JSON. */
export function auditText(value: unknown): string {
  if (value === undefined) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}
