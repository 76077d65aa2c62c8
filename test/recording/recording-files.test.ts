// Owns the tests of where a recording may be written: a recording already at the path is rotated (never truncated), anything else is refused, links are never followed, and system errors at open are CONFIG_INVALID.
import { spawnSync } from 'node:child_process';
import { existsSync, linkSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StrataError } from '../../src/core/errors.js';
import { encodeRecording } from '../../src/recording/recording-codec.js';
import { recordingOpenError } from '../../src/recording/recording-files.js';
import { RECORDING_FILE_BYTES_MIN } from '../../src/recording/recording-limits.js';
import { openRecording } from '../../src/recording/recording-reader.js';
import type { RecordingHeader, RecordingWriter, RecordingWriterOptions } from '../../src/recording/recording-types.js';
import { openRecordingWriter } from '../../src/recording/recording-writer.js';

const STARTED_AT_MS = 1_700_000_000_000;
const MIB = 1024 * 1024;
/** The first bytes of a SQLite database: what `--record <data>/identity.sqlite` once truncated. */
const NOT_A_RECORDING = Buffer.concat([Buffer.from('SQLite format 3\0', 'latin1'), Buffer.alloc(100, 7)]);

let dir: string;
let path: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'strata-recording-files-'));
  path = join(dir, 'requests.rec');
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function options(extra: Partial<RecordingWriterOptions> = {}): RecordingWriterOptions {
  return { path, fileBytesMax: RECORDING_FILE_BYTES_MIN, files: 3, queueBytesMax: 64 * MIB, producer: 'strata test', description: 'files tests', now: () => STARTED_AT_MS, ...extra };
}

/** A small recording whose description tells it apart. */
function oldRecording(description: string): Buffer {
  const header: RecordingHeader = { kind: 'header', version: 1, startedAtMs: 1, sequence: 0, producer: 'earlier', description };
  return encodeRecording(header, [{ kind: 'gap', atMs: 5, dropped: 2 }]);
}

async function descriptionOf(file: string): Promise<string> {
  const reader = await openRecording(file);
  await reader.close();
  return reader.header.description;
}

/** What opening a writer on `options` rejects with (it must reject). */
async function refusal(extra: Partial<RecordingWriterOptions> = {}): Promise<StrataError> {
  const error: unknown = await openRecordingWriter(options(extra)).then(
    (writer) => writer.close().then(() => expect.unreachable('the writer opened')),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(StrataError);
  return error as StrataError;
}

describe('a recording already at the path', () => {
  it('is kept as path.1 (never truncated) and a new file starts at path with mode 0600', async () => {
    const old = oldRecording('the earlier one');
    writeFileSync(path, old, { mode: 0o644 });
    // A second name for the same file: truncating the file in place would empty it too.
    linkSync(path, join(dir, 'hard-link'));
    const writer = await openRecordingWriter(options({ files: 3 }));
    await writer.close();
    expect(readFileSync(`${path}.1`).equals(old)).toBe(true);
    expect(readFileSync(join(dir, 'hard-link')).equals(old)).toBe(true);
    expect(await descriptionOf(path)).toBe('files tests');
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('shifts with the rotated files of its set, the oldest replaced, like a rotation', async () => {
    writeFileSync(path, oldRecording('newest'));
    writeFileSync(`${path}.1`, oldRecording('middle'));
    writeFileSync(`${path}.2`, oldRecording('oldest'));
    const writer = await openRecordingWriter(options({ files: 3 }));
    await writer.close();
    expect(readdirSync(dir).sort()).toEqual(['requests.rec', 'requests.rec.1', 'requests.rec.2']);
    expect([await descriptionOf(`${path}.2`), await descriptionOf(`${path}.1`), await descriptionOf(path)]).toEqual(['middle', 'newest', 'files tests']);
  });

  it('with files=1 is removed like the one file of a rotation, its bytes untouched (a second name still has them)', async () => {
    const old = oldRecording('replaced');
    writeFileSync(path, old);
    linkSync(path, join(dir, 'hard-link'));
    const writer = await openRecordingWriter(options({ files: 1 }));
    await writer.close();
    expect(readdirSync(dir).sort()).toEqual(['hard-link', 'requests.rec']);
    expect(readFileSync(join(dir, 'hard-link')).equals(old)).toBe(true);
    expect(await descriptionOf(path)).toBe('files tests');
  });
});

describe('anything else at the path is refused with CONFIG_INVALID naming it, and left as it was', () => {
  const target = (): string => join(dir, 'elsewhere');

  it.each([
    ['a file that is not a recording (an identity database)', (): void => writeFileSync(path, NOT_A_RECORDING, { mode: 0o644 }), 'not a recording'],
    ['an empty file', (): void => writeFileSync(path, ''), 'not a recording'],
    ['a symbolic link to a file of mode 0644', (): void => (writeFileSync(target(), NOT_A_RECORDING, { mode: 0o644 }), symlinkSync(target(), path)), 'symbolic link'],
    ['a symbolic link to a recording', (): void => (writeFileSync(target(), oldRecording('linked'), { mode: 0o644 }), symlinkSync(target(), path)), 'symbolic link'],
    ['a dangling symbolic link', (): void => symlinkSync(target(), path), 'symbolic link'],
    ['a symbolic link to /dev/full', (): void => symlinkSync('/dev/full', path), 'symbolic link'],
    ['a directory', (): void => mkdirSync(path), 'directory'],
    ['a FIFO', (): void => void expect(spawnSync('mkfifo', [path]).status).toBe(0), 'not an ordinary file'],
  ])('%s', async (_name, setUp, reason) => {
    setUp();
    const before = lstatSync(path);
    const targetBefore = existsSync(target()) ? { bytes: readFileSync(target()), mode: statSync(target()).mode } : null;
    const error = await refusal();
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.details).toMatchObject({ option: 'path', path });
    expect(error.message).toContain(path);
    expect(error.message).toContain(reason);
    const after = lstatSync(path);
    expect({ ino: after.ino, mode: after.mode, size: after.size, mtimeMs: after.mtimeMs }).toEqual({ ino: before.ino, mode: before.mode, size: before.size, mtimeMs: before.mtimeMs });
    if (targetBefore === null) expect(existsSync(target())).toBe(false);
    else expect({ bytes: readFileSync(target()), mode: statSync(target()).mode }).toEqual(targetBefore);
    expect(readdirSync(dir).filter((name) => name.startsWith('requests.rec.'))).toEqual([]);
  });

  it('refuses a link or another file at a rotated name before creating anything', async () => {
    writeFileSync(join(dir, 'elsewhere'), NOT_A_RECORDING);
    symlinkSync(join(dir, 'elsewhere'), `${path}.1`);
    expect((await refusal({ files: 3 })).details).toMatchObject({ path: `${path}.1` });
    expect(existsSync(path)).toBe(false);
    rmSync(`${path}.1`);
    writeFileSync(`${path}.2`, NOT_A_RECORDING);
    expect((await refusal({ files: 3 })).details).toMatchObject({ path: `${path}.2` });
    expect(existsSync(path)).toBe(false);
    // Names past the set's last one are not the writer's: they are left alone and do not matter.
    const writer = await openRecordingWriter(options({ files: 2 }));
    await writer.close();
    expect(readFileSync(`${path}.2`).equals(NOT_A_RECORDING)).toBe(true);
  });

  it('a rotated name taken by a link while recording: the rotation is refused (onError, CONFIG_INVALID) and the link and its target are untouched', async () => {
    const errors: Error[] = [];
    let failed: () => void = () => undefined;
    const failure = new Promise<void>((resolve) => (failed = resolve));
    const writer: RecordingWriter = await openRecordingWriter(options({ files: 2, onError: (error) => (errors.push(error), failed()) }));
    writeFileSync(join(dir, 'elsewhere'), NOT_A_RECORDING, { mode: 0o644 });
    symlinkSync(join(dir, 'elsewhere'), `${path}.1`);
    const body = Buffer.alloc(4 * MIB, 0x61);
    // Four bodies fill the smallest file; the fifth makes the writer rotate.
    for (let n = 0; n < 5; n += 1) writer.record({ arrivedAtMs: STARTED_AT_MS + n, method: 'POST', url: '/i', tenant: 't', contentType: null, body, status: 200, durationMs: 0 });
    await failure;
    await writer.close();
    expect((errors[0] as StrataError).code).toBe('CONFIG_INVALID');
    expect((errors[0] as StrataError).details).toMatchObject({ path: `${path}.1` });
    expect(lstatSync(`${path}.1`).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(dir, 'elsewhere')).equals(NOT_A_RECORDING)).toBe(true);
    expect(statSync(join(dir, 'elsewhere')).mode & 0o777).toBe(0o644);
    expect(writer.stats()).toMatchObject({ framesWritten: 4, rotations: 0, dropped: 1 });
  });
});

describe('system errors at open', () => {
  it('a missing directory is CONFIG_INVALID with { path, code: ENOENT }', async () => {
    const missing = join(dir, 'no-such-dir', 'r.rec');
    const error = await refusal({ path: missing });
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.details).toMatchObject({ path: missing, code: 'ENOENT' });
    expect(error.message).toContain('its directory does not exist');
  });

  it('a path under a file is CONFIG_INVALID with code ENOTDIR', async () => {
    writeFileSync(join(dir, 'a-file'), 'x');
    const error = await refusal({ path: join(dir, 'a-file', 'r.rec') });
    expect(error.details).toMatchObject({ code: 'ENOTDIR' });
  });

  it.each(['ENOSPC', 'EACCES', 'EISDIR', 'EROFS', 'EIO'])('%s becomes CONFIG_INVALID naming the path and the code', (code) => {
    const cause = Object.assign(new Error(`${code}: something, open '/x'`), { code, syscall: 'open' });
    const error = recordingOpenError('/x/r.rec', cause) as StrataError;
    expect(error).toBeInstanceOf(StrataError);
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.details).toMatchObject({ option: 'path', path: '/x/r.rec', code });
    expect(error.message).toContain('/x/r.rec');
    expect(error.message).toContain(code);
  });

  it('coded errors and bugs pass through unchanged', () => {
    const coded = new StrataError('CONFIG_INVALID', 'already coded', {});
    const bug = new TypeError('a bug');
    expect(recordingOpenError('/x', coded)).toBe(coded);
    expect(recordingOpenError('/x', bug)).toBe(bug);
  });
});
