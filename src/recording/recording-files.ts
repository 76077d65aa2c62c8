// Owns the files of a recording on disk: refusing to replace what is not a recording, creating files exclusively (never through a link), rotating names, and writing buffers fully.
import { constants } from 'node:fs';
import { lstat, open, rename, unlink, type FileHandle } from 'node:fs/promises';
import { StrataError } from '../core/errors.js';
import { RECORDING_FILE_MODE, RECORDING_MAGIC, RECORDING_WRITE_BATCH_BUFFERS_MAX } from './recording-limits.js';

/** Created only when nothing is at the path (not even a dangling link), and never through a symbolic link. */
const CREATE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
/** Reading a file's first bytes: never through a link, and never waiting on a FIFO swapped in after the check. */
const PEEK_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** Why opening a recording failed, for the system errors an operator can fix (a missing directory, a full disk …). */
const SYSTEM_REASONS: Readonly<Record<string, string>> = {
  ENOENT: 'its directory does not exist',
  ENOTDIR: 'a part of its directory path is not a directory',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'the file system is read-only',
  ENOSPC: 'no space is left on the device',
  EDQUOT: 'the disk quota is exhausted',
  EISDIR: 'it is a directory',
  EEXIST: 'a file appeared at the path while it was being created',
  ELOOP: 'it is a symbolic link',
};

/** CONFIG_INVALID for a path the writer will not use, with the reason in the message and the details. */
function refused(path: string, reason: string): StrataError {
  return new StrataError('CONFIG_INVALID', `Cannot record to ${path}: ${reason}.`, { option: 'path', path, reason });
}

/**
 * The error `openRecordingWriter` reports for a failure at `path`: a system error (ENOENT, EACCES,
 * ENOSPC, EISDIR …) becomes CONFIG_INVALID with details `{ option, path, code, reason }`, since
 * only the operator can fix it; coded errors pass unchanged, and so does anything else (a bug).
 */
export function recordingOpenError(path: string, error: unknown): unknown {
  if (error instanceof StrataError) return error;
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (typeof code !== 'string' || !(error instanceof Error)) return error;
  const reason = SYSTEM_REASONS[code] ?? error.message;
  return new StrataError('CONFIG_INVALID', `Cannot record to ${path}: ${reason} (${code}).`, { option: 'path', path, code, reason });
}

/** True when `name` starts with the recording magic; it was an ordinary file when lstat looked, and the open does not follow a link put there since. */
async function startsWithMagic(name: string): Promise<boolean> {
  const file = await open(name, PEEK_FLAGS);
  try {
    if (!(await file.stat()).isFile()) return false;
    const start = Buffer.alloc(RECORDING_MAGIC.length);
    const { bytesRead } = await file.read(start, 0, start.length, 0);
    return bytesRead === start.length && start.equals(RECORDING_MAGIC);
  } finally {
    await file.close();
  }
}

/**
 * What is at `name`: false for nothing, true for a recording (an ordinary file starting with the
 * magic). Anything else is refused with CONFIG_INVALID: a symbolic link (even to a recording: its
 * target is not the writer's to rename), a directory, a device or FIFO, or a file of other content.
 */
export async function recordingAt(name: string): Promise<boolean> {
  let stat;
  try {
    stat = await lstat(name);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
  if (stat.isSymbolicLink()) throw refused(name, 'it is a symbolic link, and a recording never writes or rotates through one');
  if (stat.isDirectory()) throw refused(name, 'it is a directory');
  if (!stat.isFile()) throw refused(name, 'it is not an ordinary file (a device, FIFO or socket)');
  if (stat.size === 0 || !(await startsWithMagic(name))) {
    throw refused(name, `it is a file that is not a recording (it does not start with "${RECORDING_MAGIC.toString('ascii')}"); move it away or record elsewhere`);
  }
  return true;
}

/** Checks the names rotation will rename over (`path.1` … `path.(files-1)`): each holds nothing or a recording, else CONFIG_INVALID. */
async function checkRotationNames(path: string, files: number): Promise<void> {
  for (let index = 1; index < files; index += 1) await recordingAt(`${path}.${index}`);
}

/**
 * Makes room for a new file at `path`: moves a recording there to `path.1`, `path.1` to `path.2`
 * … so that `files` files remain with the new one; the oldest is replaced (with files = 1, `path`
 * itself is removed). Used at open (a recording already at `path` is kept, never truncated) and at
 * each rotation. Every name involved must hold a recording or nothing, checked first: a rename
 * replaces what is at its target, so a file of other content or a link is refused, not destroyed.
 */
export async function shiftRecordingFiles(path: string, files: number): Promise<void> {
  const current = await recordingAt(path);
  await checkRotationNames(path, files);
  if (!current) return;
  if (files === 1) {
    await unlink(path);
    return;
  }
  for (let index = files - 1; index >= 1; index -= 1) {
    const from = index === 1 ? path : `${path}.${index - 1}`;
    try {
      await rename(from, `${path}.${index}`);
    } catch (error) {
      // Older slots are empty until enough rotations have happened; the current file exists (checked above).
      if (index === 1 || (error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
}

/** Creates a new recording file with mode RECORDING_FILE_MODE: only where nothing is (O_EXCL), never through a link (O_NOFOLLOW). */
export async function createRecordingFile(path: string): Promise<FileHandle> {
  const file = await open(path, CREATE_FLAGS, RECORDING_FILE_MODE);
  try {
    // The umask may have narrowed the mode; the file is new and ours, so setting it exactly is safe.
    await file.chmod(RECORDING_FILE_MODE);
    return file;
  } catch (error) {
    await file.close();
    throw error;
  }
}

/** Writes every buffer in order at the file's position, at most RECORDING_WRITE_BATCH_BUFFERS_MAX per writev, resuming after short writes. */
export async function writeFully(file: FileHandle, buffers: readonly Uint8Array[]): Promise<void> {
  let rest = buffers.slice();
  while (rest.length > 0) {
    let { bytesWritten } = await file.writev(rest.slice(0, RECORDING_WRITE_BATCH_BUFFERS_MAX));
    let skip = 0;
    while (skip < rest.length && bytesWritten >= rest[skip]!.byteLength) bytesWritten -= rest[skip++]!.byteLength;
    rest = rest.slice(skip);
    if (bytesWritten > 0) rest[0] = rest[0]!.subarray(bytesWritten);
  }
}
