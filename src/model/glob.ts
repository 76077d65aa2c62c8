// Owns metric-name glob patterns: `*` matches any run of characters, `?` exactly one.

/** Compiles a glob into an anchored regular expression; every other character matches itself. */
export function globToRegExp(glob: string): RegExp {
  let source = '';
  for (const ch of glob) {
    if (ch === '*') source += '.*';
    else if (ch === '?') source += '.';
    else source += ch.replace(/[\\^$.|+()[\]{}]/g, '\\$&');
  }
  return new RegExp(`^${source}$`, 's');
}
