// Checks the rules of ARCHITECTURE.md section 2 by reading src/: dependency direction between rooms,
// who may import better-sqlite3, who may read argv and env, that the engine never reads the wall clock,
// that the wire codecs hold no HTTP and no module-level state, and that the browser console and the server share no code.
import { readFileSync, readdirSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, posix, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/** A source file: its path from the repository root with forward slashes (`src/model/stats.ts`) and its text. */
interface SourceFile {
  readonly path: string;
  readonly text: string;
}

/** One broken rule, with where it is and what it imports or calls. */
interface Violation {
  readonly file: string;
  readonly line: number;
  /** The import specifier or the offending expression. */
  readonly subject: string;
  readonly rule: string;
}

const ENGINE_ROOMS = ['core', 'model', 'storage', 'ingest', 'rollup', 'query', 'retention', 'clickhouse', 'store', 'store-types'];
/** The ClickHouse backend: the engine's rules (validation, planner, rollup math, retention policy) over shards instead of files. */
const CLICKHOUSE_TARGETS = ['core', 'model', 'storage', 'ingest', 'query', 'retention', 'store-types', 'clickhouse'];
const WORKER_ROOMS = ['ingest', 'rollup', 'query', 'retention'];
const SERVICE_ROOMS = ['identity', 'monitoring', 'agent', 'feeds', 'dns'];
/** Recordings (file format, writer, reader), replay (a client of a target server) and workload generators. */
const TRAFFIC_ROOMS = ['recording', 'replay', 'workload'];
/** Browser code (the web console, bundled by esbuild): it talks to the server only through its public HTTP APIs. */
const BROWSER_ROOMS = ['console'];
const SERVER_ROOMS = [...ENGINE_ROOMS, ...SERVICE_ROOMS, ...TRAFFIC_ROOMS, 'wire', 'protocols', 'index', 'http', 'cli'];
const ALL_ROOMS = [...SERVER_ROOMS, ...BROWSER_ROOMS];

/**
 * What each room may import at run time. `store-types` (public shapes) may also be imported with
 * `import type` by storage and the worker rooms: type imports are erased, so they add no runtime
 * edge, and the planner's QueryRequest and QueryPlan live there. `index` is the library barrel:
 * it may not pull in the server or the CLI.
 */
function allowedTargets(room: string): readonly string[] {
  // The console runs in the browser: it imports only itself (not even types of the server), and no server room imports it.
  if (BROWSER_ROOMS.includes(room)) return [room];
  if (room === 'core') return ['core'];
  if (room === 'model') return ['core', 'model'];
  if (room === 'wire') return ['core', 'model', 'wire'];
  // The protocols that need more than a body decoder (remote read against a Store, the Graphite listener): the Store interface, never its implementation.
  if (room === 'protocols') return ['core', 'model', 'wire', 'store-types', 'protocols'];
  if (room === 'recording') return ['core', 'recording'];
  if (room === 'replay') return ['core', 'model', 'wire', 'recording', 'replay'];
  if (room === 'workload') return ['core', 'model', 'recording', 'workload'];
  if (room === 'storage') return ['core', 'model', 'storage'];
  if (WORKER_ROOMS.includes(room)) return ['core', 'model', 'storage', room];
  if (room === 'clickhouse') return CLICKHOUSE_TARGETS;
  if (room === 'store' || room === 'store-types') return ENGINE_ROOMS;
  if (SERVICE_ROOMS.includes(room)) return [...ENGINE_ROOMS, ...SERVICE_ROOMS, 'index'];
  if (room === 'index') return [...ENGINE_ROOMS, ...SERVICE_ROOMS, 'index'];
  if (room === 'http') return SERVER_ROOMS.filter((r) => r !== 'cli' && r !== 'replay' && r !== 'workload');
  return SERVER_ROOMS;
}

/**
 * The room of a path under src/ (imports name `.js`, files `.ts`): its first folder; for top-level
 * files their name, except that `store-*.ts` files other than store-types.ts are pieces of the
 * composition root and belong to `store`.
 */
function roomOf(path: string): string {
  const parts = path.split('/').slice(1);
  if (parts.length > 1) return parts[0] as string;
  const name = (parts[0] as string).replace(/\.[cm]?[jt]s$/, '');
  return name !== 'store-types' && name.startsWith('store-') ? 'store' : name;
}

/** Blanks out comments (keeping newlines, so line numbers hold) and leaves strings alone. */
function stripComments(text: string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i] as string;
    const next = text[i + 1];
    if (c === '/' && next === '/') {
      while (i < text.length && text[i] !== '\n') (out += ' '), i++;
    } else if (c === '/' && next === '*') {
      const end = text.indexOf('*/', i + 2);
      const stop = end === -1 ? text.length : end + 2;
      out += text.slice(i, stop).replace(/[^\n]/g, ' ');
      i = stop;
    } else if (c === '"' || c === "'" || c === '`') {
      let j = i + 1;
      while (j < text.length && text[j] !== c) j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

interface ImportEdge {
  readonly specifier: string;
  readonly line: number;
  readonly typeOnly: boolean;
}

const STATIC_IMPORT = /^[ \t]*(?:import|export)\s+(type\s+)?(?:[\w$*{}\s,]+?\s+from\s*)?['"]([^'"\n]+)['"]/gm;
const DYNAMIC_IMPORT = /\b(?:import|require)\s*\(\s*['"]([^'"\n]+)['"]\s*\)/g;

function lineAt(text: string, index: number): number {
  let line = 1;
  for (let i = 0; i < index; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/** Every import, re-export, dynamic import and require of a file, with `import type` marked. */
function importsOf(code: string): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const m of code.matchAll(STATIC_IMPORT)) {
    const at = m.index + (m[0].length - m[0].trimStart().length);
    edges.push({ specifier: m[2] as string, line: lineAt(code, at), typeOnly: m[1] !== undefined });
  }
  for (const m of code.matchAll(DYNAMIC_IMPORT)) {
    edges.push({ specifier: m[1] as string, line: lineAt(code, m.index), typeOnly: false });
  }
  return edges;
}

const READS_ARGV_OR_ENV = [
  /\bprocess\s*(?:\?\.|\.)\s*(?:argv|env)\b/g,
  /\bprocess\s*\[\s*['"`](?:argv|env)['"`]\s*\]/g,
  /\{[^}]*\b(?:argv|env)\b[^}]*\}\s*=\s*(?:globalThis\s*\.\s*)?process\b/g,
  /\bimport\s*\{[^}]*\b(?:argv|env)\b[^}]*\}\s*from\s*['"](?:node:)?process['"]/g,
];
const READS_WALL_CLOCK = [/\bDate\s*(?:\?\.|\.)\s*now\b/g, /\bnew\s+Date\s*\(\s*\)/g];

function findAll(code: string, patterns: readonly RegExp[]): { line: number; text: string }[] {
  return patterns.flatMap((p) => [...code.matchAll(p)].map((m) => ({ line: lineAt(code, m.index), text: m[0].replace(/\s+/g, ' ') })));
}

function isBetterSqlite(specifier: string): boolean {
  return specifier === 'better-sqlite3' || specifier.startsWith('better-sqlite3/');
}

/** The ClickHouse client package. */
function isClickHouseClient(specifier: string): boolean {
  return specifier === '@clickhouse/client' || specifier.startsWith('@clickhouse/');
}

/** A Node built-in module (`node:fs`, or a bare `fs`-style name of one). */
function isNodeBuiltin(specifier: string): boolean {
  return specifier.startsWith('node:') || builtinModules.includes(specifier.split('/')[0] as string);
}

function isHttpFramework(specifier: string): boolean {
  return specifier === 'fastify' || specifier.startsWith('fastify/') || specifier.startsWith('@fastify/');
}

/**
 * Module-level state in a wire file: a top-level `let` or `var`, or a top-level const bound to a
 * new object (`new X(...)` or an object literal not typed Readonly). Tables built once and only
 * read, like json-number.ts's powers, are bound through a function call and pass.
 */
const MODULE_STATE = [/^(?:export\s+)?(?:let|var)\s+[\w$]+/gm, /^(?:export\s+)?const\s+[\w$]+\s*(?::(?!\s*Readonly\b)[^=\n]+)?=\s*(?:new\b|\{)/gm];

/** The architecture rules applied to a set of files under src/; empty when every rule holds. */
function checkArchitecture(files: readonly SourceFile[]): Violation[] {
  const violations: Violation[] = [];
  for (const file of files) {
    const room = roomOf(file.path);
    const code = stripComments(file.text);
    const report = (line: number, subject: string, rule: string) => violations.push({ file: file.path, line, subject, rule });
    if (!ALL_ROOMS.includes(room)) report(1, room, 'a room ARCHITECTURE.md does not name; add it there and here first');

    for (const edge of importsOf(code)) {
      if (isBetterSqlite(edge.specifier)) {
        const isServiceStore = SERVICE_ROOMS.includes(room) && file.path.endsWith('-store.ts');
        if (room !== 'storage' && !isServiceStore) {
          report(edge.line, edge.specifier, 'only src/storage/ and the services\' *-store.ts files may import better-sqlite3');
        }
        continue;
      }
      if (isClickHouseClient(edge.specifier)) {
        if (file.path !== 'src/clickhouse/shard-client.ts') report(edge.line, edge.specifier, 'only src/clickhouse/shard-client.ts may import the ClickHouse client');
        continue;
      }
      if (BROWSER_ROOMS.includes(room) && (isNodeBuiltin(edge.specifier) || isHttpFramework(edge.specifier))) {
        report(edge.line, edge.specifier, 'src/console/ runs in the browser: it may not import Node built-ins or the server framework');
        continue;
      }
      if (room === 'wire' && isHttpFramework(edge.specifier)) {
        report(edge.line, edge.specifier, 'src/wire/ decodes bytes without HTTP: it may not import fastify');
        continue;
      }
      if (!edge.specifier.startsWith('.')) continue;
      const target = posix.normalize(posix.join(posix.dirname(file.path), edge.specifier));
      if (!target.startsWith('src/')) continue;
      const targetRoom = roomOf(target);
      if (allowedTargets(room).includes(targetRoom)) continue;
      const typeOnlyShapes = edge.typeOnly && targetRoom === 'store-types' && (room === 'storage' || WORKER_ROOMS.includes(room));
      if (typeOnlyShapes) continue;
      report(edge.line, edge.specifier, `${room} may not import ${targetRoom} (allowed: ${allowedTargets(room).join(', ')})`);
    }

    if (room === 'wire') {
      for (const hit of findAll(code, MODULE_STATE)) report(hit.line, hit.text, 'src/wire/ keeps no module-level state: a decoder instance owns its scratch');
    }
    if (room !== 'cli') {
      for (const hit of findAll(code, READS_ARGV_OR_ENV)) report(hit.line, hit.text, 'only src/cli/ reads process.argv and process.env');
    }
    if (ENGINE_ROOMS.includes(room) || room === 'index') {
      if (file.path === 'src/core/clock.ts') continue;
      for (const hit of findAll(code, READS_WALL_CLOCK)) report(hit.line, hit.text, 'the engine reads time only through an injected Clock');
    }
  }
  return violations;
}

function describeViolation(v: Violation): string {
  return `${v.file}:${v.line}: ${v.subject}: ${v.rule}`;
}

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

function sourceFiles(dir: string): SourceFile[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry): SourceFile[] => {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    if (!entry.name.endsWith('.ts')) return [];
    return [{ path: relative(ROOT, full).split(sep).join('/'), text: readFileSync(full, 'utf8') }];
  });
}

describe('architecture of src/', () => {
  const files = sourceFiles(join(ROOT, 'src'));

  it('reads the source tree', () => {
    expect(files.length).toBeGreaterThan(5);
    expect(files.some((f) => f.path === 'src/core/time.ts')).toBe(true);
  });

  it('keeps every rule of ARCHITECTURE.md section 2', () => {
    expect(checkArchitecture(files).map(describeViolation)).toEqual([]);
  });
});

describe('checkArchitecture on synthetic files', () => {
  const check = (path: string, text: string) => checkArchitecture([{ path, text }]).map(describeViolation);

  it('accepts imports along the dependency direction', () => {
    expect(check('src/model/stats.ts', "import { alignDown } from '../core/time.js';")).toEqual([]);
    expect(check('src/query/planner.ts', "import { x } from '../storage/a.js';\nimport type { QueryPlan } from '../store-types.js';")).toEqual([]);
    expect(check('src/store.ts', "import { planQuery } from './query/planner.js';")).toEqual([]);
    expect(check('src/monitoring/alarms.ts', "import type { Store } from '../store-types.js';\nimport { a } from '../feeds/b.js';")).toEqual([]);
    expect(check('src/http/server.ts', "import { a } from '../dns/views.js';")).toEqual([]);
    expect(check('src/cli/main.ts', "import { serve } from '../http/server.js';\nconst port = process.env.PORT;")).toEqual([]);
  });

  it('lists the file, line and import of an upward import', () => {
    expect(check('src/model/stats.ts', "// why\nimport { open } from '../storage/open-database.js';")).toEqual([
      'src/model/stats.ts:2: ../storage/open-database.js: model may not import storage (allowed: core, model)',
    ]);
    expect(check('src/core/time.ts', "import { Resolution } from '../model/resolution.js';")).toHaveLength(1);
    expect(check('src/store.ts', "import { route } from './http/routes.js';")).toHaveLength(1);
    expect(check('src/monitoring/alarms.ts', "import { reply } from '../http/error-status.js';")).toHaveLength(1);
    expect(check('src/http/server.ts', "import { main } from '../cli/main.js';")).toHaveLength(1);
    expect(check('src/index.ts', "export { main } from './cli/main.js';")).toHaveLength(1);
  });

  it('keeps sibling engine rooms apart and store-types type-only below the store', () => {
    expect(check('src/query/executor.ts', "import { schedule } from '../rollup/scheduler.js';")).toEqual([
      'src/query/executor.ts:1: ../rollup/scheduler.js: query may not import rollup (allowed: core, model, storage, query)',
    ]);
    expect(check('src/rollup/pool.ts', "import { type StoreLogger } from '../store-types.js';")).toHaveLength(1);
    expect(check('src/rollup/pool.ts', "import type { StoreLogger } from '../store-types.js';")).toEqual([]);
    expect(check('src/model/x.ts', "import type { StoreLogger } from '../store-types.js';")).toHaveLength(1);
  });

  it('parses multi-line, re-export, side-effect and dynamic imports', () => {
    const text = [
      "import {",
      "  a,",
      "  b,",
      "} from '../storage/a.js';",
      "export * from '../ingest/head.js';",
      "import '../rollup/side-effect.js';",
      "const m = await import('../query/planner.js');",
    ].join('\n');
    expect(check('src/model/x.ts', text).map((v) => v.split(':')[1])).toEqual(['1', '5', '6', '7']);
  });

  it('ignores imports and calls written in comments', () => {
    const text = "/*\nimport { a } from '../storage/a.js';\n*/\n// Date.now() and process.env are not read here\nconst s = 'x';";
    expect(check('src/model/x.ts', text)).toEqual([]);
  });

  it('confines better-sqlite3 to storage and the services\' stores', () => {
    const line = "import Database from 'better-sqlite3';";
    expect(check('src/storage/open-database.ts', line)).toEqual([]);
    expect(check('src/identity/api-key-store.ts', line)).toEqual([]);
    expect(check('src/identity/tokens.ts', line)).toHaveLength(1);
    expect(check('src/query/executor.ts', "import type Database from 'better-sqlite3';")).toHaveLength(1);
    expect(check('src/http/server.ts', line)).toHaveLength(1);
  });

  it('confines the ClickHouse client to the shard client, and the backend to the engine rooms', () => {
    const line = "import { createClient } from '@clickhouse/client';";
    expect(check('src/clickhouse/shard-client.ts', line)).toEqual([]);
    expect(check('src/clickhouse/clickhouse-store.ts', line)).toHaveLength(1);
    expect(check('src/http/server.ts', line)).toHaveLength(1);
    expect(check('src/clickhouse/series-reads.ts', "import { bucketsFromSamples } from '../model/rollup-math.js';")).toEqual([]);
    expect(check('src/clickhouse/x.ts', "import { RollupPool } from '../rollup/rollup-pool.js';")).toHaveLength(1);
    expect(check('src/clickhouse/x.ts', "import { buildServer } from '../http/server.js';")).toHaveLength(1);
  });

  it('lets only the CLI read argv and env', () => {
    expect(check('src/http/server.ts', 'const port = process.env.PORT;')).toEqual([
      'src/http/server.ts:1: process.env: only src/cli/ reads process.argv and process.env',
    ]);
    expect(check('src/store.ts', "const args = process['argv'];")).toHaveLength(1);
    expect(check('src/monitoring/x.ts', 'const { env } = process;')).toHaveLength(1);
    expect(check('src/feeds/x.ts', "import { argv } from 'node:process';")).toHaveLength(1);
  });

  it('keeps the wall clock out of the engine but for core/clock.ts', () => {
    expect(check('src/rollup/scheduler.ts', 'const t = Date.now();')).toEqual([
      'src/rollup/scheduler.ts:1: Date.now: the engine reads time only through an injected Clock',
    ]);
    expect(check('src/storage/wal.ts', 'const d = new Date();')).toHaveLength(1);
    expect(check('src/core/clock.ts', 'export const now = () => Date.now();')).toEqual([]);
    expect(check('src/http/server.ts', 'const t = Date.now();')).toEqual([]);
    expect(check('src/core/time.ts', 'new Date(timeMs).toISOString();')).toEqual([]);
  });

  it('flags a room ARCHITECTURE.md does not name', () => {
    expect(check('src/utils/misc.ts', 'export const x = 1;')).toHaveLength(1);
    expect(check('src/helpers.ts', 'export const x = 1;')).toHaveLength(1);
  });

  it('lets wire import only core and model, and http and cli import wire', () => {
    expect(check('src/wire/fast-json.ts', "import { INGEST_BATCH_POINTS_MAX } from '../core/limits.js';\nimport type { PointColumnsBuilder } from '../model/point-columns.js';\nimport { Unpackr } from 'msgpackr';")).toEqual([]);
    expect(check('src/wire/ingest-body.ts', "import { httpError } from '../http/http-errors.js';")).toEqual([
      'src/wire/ingest-body.ts:1: ../http/http-errors.js: wire may not import http (allowed: core, model, wire)',
    ]);
    expect(check('src/wire/x.ts', "import type { Store } from '../store-types.js';")).toHaveLength(1);
    expect(check('src/wire/x.ts', "import type { FastifyRequest } from 'fastify';")).toHaveLength(1);
    expect(check('src/wire/x.ts', "import multipart from '@fastify/multipart';")).toHaveLength(1);
    expect(check('src/http/server.ts', "import { IngestDecoder } from '../wire/ingest-decoder.js';")).toEqual([]);
    expect(check('src/cli/point-sources.ts', "import { bluefloodPoint } from '../wire/blueflood-metric.js';")).toEqual([]);
    expect(check('src/store.ts', "import { IngestDecoder } from './wire/ingest-decoder.js';")).toHaveLength(1);
    expect(check('src/monitoring/x.ts', "import { IngestDecoder } from '../wire/ingest-decoder.js';")).toHaveLength(1);
  });

  it('flags module-level state in wire, and only there', () => {
    expect(check('src/wire/fast-json.ts', 'const slot = new NumberSlot();')).toEqual([
      'src/wire/fast-json.ts:1: const slot = new: src/wire/ keeps no module-level state: a decoder instance owns its scratch',
    ]);
    expect(check('src/wire/fast-msgpack.ts', 'const read = { next: 0 };')).toHaveLength(1);
    expect(check('src/wire/x.ts', 'let count = 0;\nexport var y = 1;')).toHaveLength(2);
    expect(check('src/wire/x.ts', "const unpackr: Unpackr = new Unpackr({ int64AsType: 'number' });")).toHaveLength(1);
    const allowed = [
      'const BAIL = -1;',
      "const SOURCE_OF_FIELD: Readonly<Record<string, string>> = { tenant: 'tenantId' };",
      'const TABLE = ((): Float64Array => new Float64Array(4))();',
      'export class IngestDecoder {\n  private readonly scratch = new DecodeScratch();\n}',
      'function f(): number {\n  let i = 0;\n  const o = { next: 0 };\n  return i + o.next;\n}',
    ];
    for (const text of allowed) expect(check('src/wire/x.ts', text), text).toEqual([]);
    expect(check('src/http/x.ts', 'let count = 0;')).toEqual([]);
  });

  it('keeps the browser console and the server rooms apart', () => {
    expect(check('src/console/main.ts', "import { signIn } from './console-api.js';\nimport './styles.css';\nimport uPlot from 'uplot';")).toEqual([]);
    expect(check('src/console/x.ts', "import type { QueryPlan } from '../store-types.js';")).toEqual([
      'src/console/x.ts:1: ../store-types.js: console may not import store-types (allowed: console)',
    ]);
    expect(check('src/console/x.ts', "import { QUERY_POINTS_MAX } from '../core/limits.js';")).toHaveLength(1);
    expect(check('src/console/x.ts', "import { a } from '../http/b.js';")).toHaveLength(1);
    expect(check('src/console/x.ts', "import { readFileSync } from 'node:fs';")).toHaveLength(1);
    expect(check('src/console/x.ts', "import { join } from 'path';")).toHaveLength(1);
    expect(check('src/console/x.ts', "import type { FastifyInstance } from 'fastify';")).toHaveLength(1);
    expect(check('src/http/apis/console/console-api.ts', "import { page } from '../../../console/page.js';")).toEqual([
      'src/http/apis/console/console-api.ts:1: ../../../console/page.js: http may not import console (allowed: ' + SERVER_ROOMS.filter((r) => !['cli', 'replay', 'workload'].includes(r)).join(', ') + ')',
    ]);
    expect(check('src/cli/main.ts', "import type { Page } from '../console/page.js';")).toHaveLength(1);
    expect(check('src/core/x.ts', "import { a } from '../console/a.js';")).toHaveLength(1);
  });

  it('counts top-level store-*.ts files as part of the composition root', () => {
    expect(check('src/store-options.ts', "import type { StoreOptions } from './store-types.js';")).toEqual([]);
    expect(check('src/store-options.ts', "import { a } from './http/b.js';")).toHaveLength(1);
  });
});
