// Owns loading schema.sql and applying its sections to a database, with version checks.
import { readFileSync } from 'node:fs';
import type Database from 'better-sqlite3';
import { StrataError } from '../core/errors.js';
import { packageRoot } from './package-root.js';

/**
 * The kinds of SQLite file Strata writes, as named by "-- @file" sections of schema.sql: the
 * engine's catalog and partitions, and one file per service store.
 */
export type SchemaFile = 'catalog' | 'partition' | 'identity' | 'monitoring' | 'feeds' | 'dns';

interface ParsedSchema {
  readonly version: number;
  readonly sections: ReadonlyMap<string, string>;
}

let parsed: ParsedSchema | undefined;

function parseSchema(text: string): ParsedSchema {
  const versionMatch = /^-- @version (\d+)$/m.exec(text);
  if (!versionMatch?.[1]) throw new Error('schema.sql has no "-- @version N" line');
  const sections = new Map<string, string>();
  const parts = text.split(/^-- @file (\w+)$/m);
  for (let i = 1; i + 1 < parts.length; i += 2) sections.set(parts[i] as string, parts[i + 1] as string);
  return { version: Number(versionMatch[1]), sections };
}

function schema(): ParsedSchema {
  // The schema file is read once per thread; it is tiny and never changes while running.
  parsed ??= parseSchema(readFileSync(`${packageRoot()}/schema.sql`, 'utf8'));
  return parsed;
}

/** Creates the tables of `file` when missing; refuses a file written by a newer schema. */
export function applySchema(db: Database.Database, file: SchemaFile): void {
  const { version, sections } = schema();
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > version) {
    throw new StrataError('STORE_SCHEMA_UNSUPPORTED', `${db.name} has schema version ${current}; this build knows up to ${version}`, {
      file: db.name,
      version: current,
    });
  }
  if (current === version) return;
  const ddl = sections.get(file);
  if (ddl === undefined) throw new Error(`schema.sql has no "-- @file ${file}" section`);
  db.exec(ddl);
  db.pragma(`user_version = ${version}`);
}
