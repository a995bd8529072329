/**
 * The patterns of policy and keys files: `*` any run of characters (slashes and
 * colons included), `?` exactly one; everything else is itself. Anchored.
 */
export function globToRegExp(pattern: string): RegExp {
  let source = '';
  for (const char of pattern) {
    if (char === '*') source += '.*';
    else if (char === '?') source += '.';
    else source += char.replace(/[.+^${}()|[\]\\/-]/g, '\\$&');
  }
  return new RegExp(`^${source}$`, 's');
}

export type Matcher = (value: string) => boolean;

/** True when any of the patterns matches. */
export function anyOf(patterns: readonly string[]): Matcher {
  const compiled = patterns.map(globToRegExp);
  return (value) => compiled.some((re) => re.test(value));
}
