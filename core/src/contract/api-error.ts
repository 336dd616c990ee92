/*
 * The error every layer may throw for the API to answer (auth's checks, history's topic
 * lookup, the routes): data with a stable code, below the koa handler that answers it
 * (errors.ts).
 */
import { defaultStatus, type ErrorCode } from './error-codes.js';

/**
 * An error the API answers with `{"error": message, "code": code}` and the code's status
 * (error-codes.ts), or `status` where the code lists several.
 */
export class ApiError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly headers: Record<string, string> = {},
    status?: number,
  ) {
    super(message);
    this.status = status ?? defaultStatus(code);
  }
}

/** The body of every error answer: the words first, then the stable code. */
export function errorBody(message: string, code: ErrorCode): { error: string; code: ErrorCode } {
  return { error: message, code };
}
