/**
 * Topic globs as the API defines them: `*` matches any run of characters including `/`,
 * `?` exactly one character; everything else is literal.
 *
 * Matching does not use a RegExp: each `*` would become a backtracking `.*`, and a pattern
 * such as `************X` then takes exponential time on a topic that does not end in X
 * (one such request froze the server for minutes). Runs of `*` are collapsed and the match
 * is the classic two-pointer wildcard walk, which backs up only to the last `*` seen and so
 * costs at most pattern length x topic length steps, whatever the pattern.
 */
export interface GlobMatcher {
  test(topic: string): boolean;
}

/** Longest topic or glob the API accepts, on REST as on the WebSocket. */
export const MAX_TOPIC_LENGTH = 256;

export function compileGlob(glob: string): GlobMatcher {
  const pattern = glob.replace(/\*{2,}/g, '*');
  if (!isGlob(pattern)) return { test: (topic) => topic === pattern };
  // The literal text before the first and after the last wildcard settles most topics at once.
  const head = pattern.slice(0, pattern.search(/[*?]/));
  const tail = pattern.slice(lastWildcard(pattern) + 1);
  const minLength = pattern.replaceAll('*', '').length;
  return {
    test: (topic) =>
      topic.length >= minLength && topic.startsWith(head) && topic.endsWith(tail) && matchGlob(pattern, topic),
  };
}

function lastWildcard(pattern: string): number {
  return Math.max(pattern.lastIndexOf('*'), pattern.lastIndexOf('?'));
}

/** Whether `text` matches `pattern` (UTF-16 units, as the RegExp did; `*` runs collapsed). */
export function matchGlob(pattern: string, text: string): boolean {
  let p = 0;
  let t = 0;
  // Where the last `*` was, and the text position it is currently taken to end at.
  let starP = -1;
  let starT = 0;
  while (t < text.length) {
    const ch = pattern[p];
    if (ch === '*') {
      starP = p++;
      starT = t;
    } else if (ch !== undefined && (ch === '?' || ch === text[t])) {
      p++;
      t++;
    } else if (starP >= 0) {
      // Let the last `*` swallow one more character and retry what follows it.
      p = starP + 1;
      t = ++starT;
    } else {
      return false;
    }
  }
  while (pattern[p] === '*') p++;
  return p === pattern.length;
}

export function isGlob(topic: string): boolean {
  return topic.includes('*') || topic.includes('?');
}
