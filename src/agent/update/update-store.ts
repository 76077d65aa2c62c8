// Owns the published agent update bundles under <dataDir>/agent-updates/<channel>/<version>/{bundle,bundle.sig}: names, version order, atomic publishing.
import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, mkdirSync, opendirSync, openSync, renameSync, rmSync, statSync, writeSync, type Dir } from 'node:fs';
import { join } from 'node:path';
import { assert } from '../../core/assert.js';
import { StrataError } from '../../core/errors.js';
import { AGENT_UPDATE_BUNDLE_BYTES_MAX, UPDATE_SIGNATURE_BYTES_MAX, UPDATE_VERSION_LENGTH_MAX, UPDATE_VERSIONS_MAX } from '../agent-limits.js';

/** Directory name under the data directory. */
export const UPDATE_DIR_NAME = 'agent-updates';
/** The channel agents follow unless told otherwise. */
export const UPDATE_CHANNEL_DEFAULT = 'stable';
/** The two files of a published version. */
export const UPDATE_FILES = ['bundle', 'bundle.sig'] as const;
/** One of UPDATE_FILES. */
export type UpdateFile = (typeof UPDATE_FILES)[number];
/** Mode of the files written for updates (the data directory's rule: owner only). */
export const UPDATE_FILE_MODE = 0o600;
/** Mode of the directories created for updates. */
export const UPDATE_DIR_MODE = 0o700;

const CHANNEL_PATTERN = /^[a-z][a-z0-9-]{0,31}$/;
const VERSION_PATTERN = /^\d+(\.\d+){0,3}$/;

/** True for a channel name: a lower-case letter, then up to 31 lower-case letters, digits or dashes. */
export function isChannel(text: string): boolean {
  return CHANNEL_PATTERN.test(text);
}

/** True for a version: 1 to 4 dot-separated decimal numbers, at most UPDATE_VERSION_LENGTH_MAX characters. */
export function isVersion(text: string): boolean {
  return text.length <= UPDATE_VERSION_LENGTH_MAX && VERSION_PATTERN.test(text);
}

/** Compares two decimal digit strings by value, of any length (no precision loss past 2^53). */
function compareDigits(a: string, b: string): number {
  const x = a.replace(/^0+(?=\d)/, '');
  const y = b.replace(/^0+(?=\d)/, '');
  if (x.length !== y.length) return x.length < y.length ? -1 : 1;
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * Orders versions numerically part by part ("1.10" after "1.9", "10" after "9"); a missing part
 * counts as 0, so "1" equals "1.0" and "01". Returns a negative number, 0 or a positive number.
 * Both must pass isVersion (asserted: callers validate what they are given first).
 */
export function compareVersions(a: string, b: string): number {
  assert(isVersion(a) && isVersion(b), 'compareVersions takes valid versions');
  const left = a.split('.');
  const right = b.split('.');
  for (let i = 0; i < Math.max(left.length, right.length); i += 1) {
    const order = compareDigits(left[i] ?? '0', right[i] ?? '0');
    if (order !== 0) return order;
  }
  return 0;
}

/** Entry names of a directory, at most `max + 1` of them (so a caller can tell "more than max"); [] when it cannot be read. */
function boundedEntries(dir: string, max: number): string[] {
  let handle: Dir;
  try {
    handle = opendirSync(dir);
  } catch {
    return [];
  }
  const names: string[] = [];
  try {
    for (let entry = handle.readSync(); entry !== null && names.length <= max; entry = handle.readSync()) names.push(entry.name);
  } catch {
    return [];
  } finally {
    handle.closeSync();
  }
  return names;
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** Writes a file with `mode`, flushed to disk; `flag` 'wx' refuses an existing file. */
export function writeDurably(path: string, data: Buffer | string, mode: number, flag: 'w' | 'wx' = 'wx'): void {
  const fd = openSync(path, flag, mode);
  try {
    const bytes = typeof data === 'string' ? Buffer.from(data) : data;
    for (let offset = 0; offset < bytes.length; ) offset += writeSync(fd, bytes, offset);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** A name for a temporary sibling that no reader takes for a version (it starts with a dot). */
export function temporaryName(base: string): string {
  return `.${base}.tmp-${randomBytes(6).toString('hex')}`;
}

function invalidOption(option: string, message: string, extra: Record<string, unknown> = {}): StrataError {
  return new StrataError('CONFIG_INVALID', message, { option, ...extra });
}

/** The published update bundles of a data directory; `undefined` holds none (an in-memory server). */
export class UpdateStore {
  private readonly root: string | undefined;

  constructor(dataDir: string | undefined) {
    this.root = dataDir === undefined ? undefined : join(dataDir, UPDATE_DIR_NAME);
  }

  /**
   * Highest published version of a channel that has both files, or null. Reads the directory each
   * call (cheap, bounded by UPDATE_VERSIONS_MAX entries); a channel directory holding more entries
   * than that publishes nothing (null) rather than a version picked from part of it.
   */
  latestVersion(channel: string): string | null {
    if (this.root === undefined || !isChannel(channel)) return null;
    const dir = join(this.root, channel);
    const names = boundedEntries(dir, UPDATE_VERSIONS_MAX);
    if (names.length > UPDATE_VERSIONS_MAX) return null;
    // Equal versions ("1" and "1.0") fall back to the text so the answer never depends on directory order.
    const versions = names.filter(isVersion).sort((a, b) => compareVersions(b, a) || (a < b ? 1 : a > b ? -1 : 0));
    for (const version of versions) {
      if (UPDATE_FILES.every((file) => isFile(join(dir, version, file)))) return version;
    }
    return null;
  }

  /** Path of a published file (bundle or bundle.sig) or undefined (bad names never touch the file system). */
  filePath(channel: string, version: string, file: string): string | undefined {
    if (this.root === undefined || !isChannel(channel) || !isVersion(version) || !(UPDATE_FILES as readonly string[]).includes(file)) return undefined;
    const path = join(this.root, channel, version, file);
    return isFile(path) ? path : undefined;
  }

  /**
   * Publishes (the CLI's sign command): writes both files into a temporary directory and renames it
   * into place, so readers see both files or neither. Versions are immutable: publishing one that
   * exists is refused (agents that took it would never see a replacement). Throws CONFIG_INVALID
   * (details.option) for a bad channel, version or size, an existing version, or a full channel.
   * Returns the version's directory.
   */
  publish(channel: string, version: string, bundle: Buffer, signature: Buffer): string {
    assert(this.root !== undefined, 'publishing needs a data directory');
    if (!isChannel(channel)) throw invalidOption('channel', `channel ${JSON.stringify(channel)} must match ${CHANNEL_PATTERN.source}`, { channel });
    if (!isVersion(version)) throw invalidOption('version', `version ${JSON.stringify(version)} must be 1 to 4 dot-separated numbers`, { version });
    if (bundle.length > AGENT_UPDATE_BUNDLE_BYTES_MAX) throw invalidOption('bundle', `the bundle is ${bundle.length} bytes; agents take at most ${AGENT_UPDATE_BUNDLE_BYTES_MAX}`);
    if (signature.length === 0 || signature.length > UPDATE_SIGNATURE_BYTES_MAX) throw invalidOption('signature', `a signature has 1 to ${UPDATE_SIGNATURE_BYTES_MAX} bytes`);
    const dir = join(this.root, channel);
    const target = join(dir, version);
    if (statSync(target, { throwIfNoEntry: false }) !== undefined) {
      throw invalidOption('version', `version ${version} of channel ${channel} is already published; publish a higher version`, { version, channel });
    }
    mkdirSync(dir, { recursive: true, mode: UPDATE_DIR_MODE });
    if (boundedEntries(dir, UPDATE_VERSIONS_MAX).length >= UPDATE_VERSIONS_MAX) {
      throw invalidOption('channel', `channel ${channel} holds ${UPDATE_VERSIONS_MAX} entries; remove old versions from ${dir} first`, { channel });
    }
    const temporary = join(dir, temporaryName(version));
    mkdirSync(temporary, { mode: UPDATE_DIR_MODE });
    try {
      writeDurably(join(temporary, 'bundle'), bundle, UPDATE_FILE_MODE);
      writeDurably(join(temporary, 'bundle.sig'), signature, UPDATE_FILE_MODE);
      renameSync(temporary, target);
    } catch (error) {
      rmSync(temporary, { recursive: true, force: true });
      // Another publisher of the same version won the rename.
      const code = (error as { code?: unknown }).code;
      if (code === 'ENOTEMPTY' || code === 'EEXIST') throw invalidOption('version', `version ${version} of channel ${channel} is already published`, { version, channel });
      throw error;
    }
    return target;
  }
}
