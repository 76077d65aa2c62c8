// Owns reading a console build (index.html and assets/) into memory once: each file's bytes, media type and ETag, under fixed limits.
import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, type Dirent } from 'node:fs';
import { extname, join } from 'node:path';
import { configError } from '../../../core/config-error.js';
import { CONSOLE_ASSET_FILES_MAX, CONSOLE_BYTES_MAX } from '../../http-limits.js';

/** The page served at `/`, in the console directory. */
export const CONSOLE_INDEX_FILE = 'index.html';
/** The folder of the hashed bundles, served at `/assets/<name>`. */
export const CONSOLE_ASSETS_DIR = 'assets';

/** One file served from memory. */
export interface ConsoleFile {
  readonly body: Buffer;
  /** The Content-Type header, with a charset for text. */
  readonly type: string;
  /** A strong ETag (quoted) derived from the bytes, so it changes exactly when they do. */
  readonly etag: string;
}

/** A console build as served: the page and the assets by file name. */
export interface ConsoleBuild {
  readonly index: ConsoleFile;
  readonly assets: ReadonlyMap<string, ConsoleFile>;
}

/** Media types of the files a build may serve; a file of another extension is not served at all. */
const MEDIA_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
};

/** Names an asset may have: letters, digits, `.`, `_` and `-`, not starting with a dot (no dot files, never a path). */
const ASSET_NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,199}$/;

function consoleFile(body: Buffer, type: string): ConsoleFile {
  const digest = createHash('sha256').update(body).digest('base64url').slice(0, 32);
  return { body, type, etag: `"${digest}"` };
}

/** True when `path` is a regular file (a symbolic link is not followed: it could point out of the build). */
function isRegularFile(path: string): boolean {
  try {
    return lstatSync(path).isFile();
  } catch {
    return false;
  }
}

/** The regular files of the assets folder that may be served (empty when there is no such folder). */
function assetEntries(dir: string): Dirent[] {
  let entries: Dirent[];
  try {
    entries = readdirSync(join(dir, CONSOLE_ASSETS_DIR), { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.filter((entry) => entry.isFile() && ASSET_NAME.test(entry.name) && MEDIA_TYPES[extname(entry.name)] !== undefined);
}

/**
 * Reads the build in `dir` into memory, or undefined when `dir` holds no index.html (not built).
 * Only regular files are read: index.html and the assets whose names and extensions qualify; the
 * URL never names a path on disk, so nothing outside the build can be served. Throws
 * CONFIG_INVALID when the build is over CONSOLE_ASSET_FILES_MAX files or CONSOLE_BYTES_MAX bytes.
 */
export function loadConsoleBuild(dir: string): ConsoleBuild | undefined {
  const indexPath = join(dir, CONSOLE_INDEX_FILE);
  if (!isRegularFile(indexPath)) return undefined;
  const entries = assetEntries(dir);
  if (entries.length > CONSOLE_ASSET_FILES_MAX) {
    throw configError('consoleDir', `a console build of at most ${CONSOLE_ASSET_FILES_MAX} asset files`, dir);
  }
  const index = consoleFile(readFileSync(indexPath), MEDIA_TYPES['.html'] as string);
  let bytes = index.body.length;
  const assets = new Map<string, ConsoleFile>();
  for (const entry of entries) {
    const body = readFileSync(join(dir, CONSOLE_ASSETS_DIR, entry.name));
    bytes += body.length;
    if (bytes > CONSOLE_BYTES_MAX) throw configError('consoleDir', `a console build of at most ${CONSOLE_BYTES_MAX} bytes`, dir);
    assets.set(entry.name, consoleFile(body, MEDIA_TYPES[extname(entry.name)] as string));
  }
  return { index, assets };
}
