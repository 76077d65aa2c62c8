// Owns every limit of the recording file format, the recorder and replay as named constants; relations between them are asserted at load.
import { assert } from '../core/assert.js';

/** The bytes every recording file starts with; anything else is RECORDING_NOT_A_RECORDING. */
export const RECORDING_MAGIC = Buffer.from('STRATA-RECORDING', 'ascii');
/** Version of the frame layout this build writes and reads (docs/recording.md). */
export const RECORDING_FORMAT_VERSION = 1;
/** Bytes in front of each frame's msgpack payload: u32 big-endian length, u32 big-endian CRC-32 of the payload. */
export const RECORDING_FRAME_PREFIX_BYTES = 8;
/** Largest msgpack payload of one frame: a request body at the server's largest body limit (16 MiB) plus its URL and fields. */
export const RECORDING_FRAME_BYTES_MAX = 16 * 1024 * 1024 + 64 * 1024;
/** Smallest per-file cap `--record-max-bytes` accepts: room for a header and one largest frame. */
export const RECORDING_FILE_BYTES_MIN = RECORDING_FRAME_BYTES_MAX + 64 * 1024;
/** Largest per-file cap `--record-max-bytes` accepts. */
export const RECORDING_FILE_BYTES_MAX = 64 * 1024 * 1024 * 1024;
/** Default per-file cap of `strata serve --record`. */
export const RECORDING_FILE_BYTES_DEFAULT = 1024 * 1024 * 1024;
/** Most files a rotation set keeps, the current one included. */
export const RECORDING_FILES_MAX = 100;
/** Default number of files `strata serve --record` keeps. */
export const RECORDING_FILES_DEFAULT = 4;
/** Bytes of encoded frames the recorder holds for the disk before it drops requests (and records a gap). */
export const RECORDING_QUEUE_BYTES_MAX = 64 * 1024 * 1024;
/** Bytes the reader reads from disk at a time. */
export const RECORDING_READ_CHUNK_BYTES = 1024 * 1024;

/** Most requests replay keeps in flight (`--concurrency`). */
export const REPLAY_CONCURRENCY_MAX = 256;
/** Default in-flight requests of `strata replay --max`. */
export const REPLAY_CONCURRENCY_DEFAULT = 2;
/** Largest `--speed` factor. */
export const REPLAY_SPEED_MAX = 1000;
/** Frames replay decodes ahead of the one it sends (bounded look-ahead, so a large recording is streamed). */
export const REPLAY_READ_AHEAD_FRAMES = 1024;
/** How long one replayed request may take before it counts as a timeout error. */
export const REPLAY_REQUEST_TIMEOUT_MS = 60_000;
/** Highest latency a replay histogram tracks, in microseconds (larger values are clamped to it and counted). */
export const REPLAY_LATENCY_US_MAX = 120_000_000;
/** Significant digits of the replay latency histograms (HdrHistogram). */
export const REPLAY_LATENCY_DIGITS = 3;

assert(RECORDING_FILE_BYTES_MIN > RECORDING_FRAME_BYTES_MAX + RECORDING_FRAME_PREFIX_BYTES, 'a file must hold its largest frame');
assert(RECORDING_QUEUE_BYTES_MAX >= RECORDING_FRAME_BYTES_MAX, 'the queue must hold one largest frame');
assert(RECORDING_FILES_DEFAULT <= RECORDING_FILES_MAX && RECORDING_FILE_BYTES_DEFAULT <= RECORDING_FILE_BYTES_MAX, 'defaults within their limits');
assert(REPLAY_CONCURRENCY_DEFAULT <= REPLAY_CONCURRENCY_MAX, 'default concurrency within its limit');
