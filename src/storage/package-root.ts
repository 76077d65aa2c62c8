// Owns finding the package root (where schema.sql lives) from compiled or source module paths.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let root: string | undefined;

/** Directory of Strata's package.json, found by walking up from this module. */
export function packageRoot(): string {
  if (root !== undefined) return root;
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'schema.sql'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('schema.sql not found above ' + fileURLToPath(import.meta.url));
    dir = parent;
  }
  root = dir;
  return root;
}
