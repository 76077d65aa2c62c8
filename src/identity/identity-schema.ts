// Owns finding the identity DDL: the "-- @file identity" section of schema.sql, or schema-identity.sql until it is folded in.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../storage/package-root.js';

/** The identity DDL and the schema version it belongs to. */
export interface IdentityDdl {
  readonly version: number;
  readonly ddl: string;
}

function sectionOf(text: string): IdentityDdl | undefined {
  const versionMatch = /^-- @version (\d+)$/m.exec(text);
  const parts = text.split(/^-- @file (\w+)$/m);
  for (let i = 1; i + 1 < parts.length; i += 2) {
    if (parts[i] === 'identity' && versionMatch?.[1] !== undefined) {
      return { version: Number(versionMatch[1]), ddl: parts[i + 1] as string };
    }
  }
  return undefined;
}

/** The identity DDL: schema.sql's identity section once folded in, else schema-identity.sql. */
export function identityDdl(): IdentityDdl {
  const root = packageRoot();
  for (const name of ['schema.sql', 'schema-identity.sql']) {
    const path = join(root, name);
    if (!existsSync(path)) continue;
    const found = sectionOf(readFileSync(path, 'utf8'));
    if (found) return found;
  }
  throw new Error(`no "-- @file identity" section in schema.sql or schema-identity.sql under ${root}`);
}
