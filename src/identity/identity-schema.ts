// Owns finding and applying the identity DDL ("-- @file identity" of schema.sql or schema-identity.sql).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { StrataError } from '../core/errors.js';
import { packageRoot } from '../storage/package-root.js';

interface IdentityDdl {
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

/** Creates the identity tables when missing; refuses a file written by a newer schema. */
export function applyIdentitySchema(db: Database.Database): void {
  const { version, ddl } = identityDdl();
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > version) {
    throw new StrataError('STORE_SCHEMA_UNSUPPORTED', `${db.name} has schema version ${current}; this build knows up to ${version}`, {
      file: db.name,
      version: current,
    });
  }
  if (current === version) return;
  db.exec(ddl);
  db.pragma(`user_version = ${version}`);
}
