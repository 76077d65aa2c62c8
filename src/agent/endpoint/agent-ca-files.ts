// Owns the file operations of the agent CA directory: bounded reads, atomic private writes, and installing a new directory whole.
import { closeSync, fchmodSync, fsyncSync, mkdirSync, mkdtempSync, openSync, readFileSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { StrataError } from '../../core/errors.js';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../../storage/open-database.js';
import { AGENT_CA_FILE_BYTES_MAX } from '../agent-limits.js';

/** Mode of a certificate file: public material, readable by all (agents' installers may copy it). */
const CERT_FILE_MODE = 0o644;
/** Suffix of a file being written; a crash leaves it behind and the next write of the same name overwrites it. */
const TEMP_SUFFIX = '.tmp';

/** One file to write: a private key (0600) or a certificate (0644). */
export interface CaFile {
  readonly name: string;
  readonly text: string;
  readonly kind: 'key' | 'cert';
}

function modeOf(kind: CaFile['kind']): number {
  return kind === 'key' ? PRIVATE_FILE_MODE : CERT_FILE_MODE;
}

function unreadable(path: string, problem: string): StrataError {
  return new StrataError('AGENT_CA_INVALID', `${path}: ${problem}.`, { path, problem });
}

/** The text of `dir/name`, or undefined when it (or the directory) does not exist; a file that cannot be read or is larger than AGENT_CA_FILE_BYTES_MAX is AGENT_CA_INVALID. */
export function readCaFile(dir: string, name: string): string | undefined {
  const path = join(dir, name);
  try {
    const stats = statSync(path);
    if (!stats.isFile()) throw unreadable(path, 'is not a regular file');
    if (stats.size > AGENT_CA_FILE_BYTES_MAX) throw unreadable(path, `is ${stats.size} bytes, more than AGENT_CA_FILE_BYTES_MAX (${AGENT_CA_FILE_BYTES_MAX})`);
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    if (error instanceof StrataError) throw error;
    throw unreadable(path, `cannot be read (${(error as Error).message})`);
  }
}

/** Writes, flushes and closes one file with exactly the mode of its kind (fchmod: the umask and an older file's mode do not count). */
function writeFlushed(path: string, file: CaFile): void {
  const fd = openSync(path, 'w', modeOf(file.kind));
  try {
    fchmodSync(fd, modeOf(file.kind));
    writeSync(fd, file.text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Flushes a directory's entries (a rename inside it) to disk. */
function fsyncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Replaces `dir/name` atomically: a temporary file beside it, flushed, renamed over it, the directory flushed. */
export function writeCaFile(dir: string, name: string, text: string, kind: CaFile['kind']): void {
  const temp = join(dir, name + TEMP_SUFFIX);
  writeFlushed(temp, { name, text, kind });
  renameSync(temp, join(dir, name));
  fsyncDir(dir);
}

/**
 * Creates `dataDir/dirName` holding `files`: when the directory does not exist (or is empty) the files
 * are written into a private temporary directory that is then renamed into place, so a crash leaves
 * either no CA or a whole one; when it exists with other entries they are written one by one.
 */
export function installCaDirectory(dataDir: string, dirName: string, files: readonly CaFile[]): void {
  mkdirSync(dataDir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const target = join(dataDir, dirName);
  const temp = mkdtempSync(join(dataDir, `.${dirName}-`));
  try {
    for (const file of files) writeFlushed(join(temp, file.name), file);
    fsyncDir(temp);
    // rename(2) replaces an empty directory and refuses one with entries (ENOTEMPTY or EEXIST).
    renameSync(temp, target);
    fsyncDir(dataDir);
    return;
  } catch (error) {
    rmSync(temp, { recursive: true, force: true });
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw error;
  }
  for (const file of files) writeCaFile(target, file.name, file.text, file.kind);
}
