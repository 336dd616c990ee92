/*
 * Nesting depth of JSON text, measured before parsing. JSON.parse itself copes with any
 * depth, but what walks the result afterwards (a zod schema, JSON.stringify, a plugin's own
 * recursion) overflows the stack on a few thousand levels; no provider nests past a dozen.
 */

/** Deepest nesting a provider answer may have; real answers stay below 20. */
export const MAX_JSON_DEPTH = 64;

/** Thrown for JSON text nested deeper than `limit` levels. */
export class JsonTooDeepError extends Error {
  constructor(
    readonly limit: number,
    source = 'the JSON text',
  ) {
    super(`${source} is nested more than ${limit} levels deep, which no real answer is; it was not parsed`);
    this.name = 'JsonTooDeepError';
  }
}

/**
 * Throws {@link JsonTooDeepError} when `text` nests arrays or objects deeper than `limit`.
 * One linear pass that skips string contents, so brackets inside strings do not count.
 */
export function assertJsonDepth(text: string, limit = MAX_JSON_DEPTH, source?: string): void {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (++depth > limit) throw new JsonTooDeepError(limit, source);
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) depth--;
  }
}
