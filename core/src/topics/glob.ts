/**
 * Topic globs as the API defines them: `*` matches any run of characters including `/`,
 * `?` exactly one character; everything else is literal.
 */
export function compileGlob(glob: string): RegExp {
  let source = '^';
  for (const ch of glob) {
    if (ch === '*') source += '.*';
    else if (ch === '?') source += '.';
    else source += ch.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(source + '$');
}

export function isGlob(topic: string): boolean {
  return topic.includes('*') || topic.includes('?');
}
