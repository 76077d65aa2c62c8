// Owns every limit of the recording file format and the recorder as named constants (replay's are in src/replay/replay-limits.ts); relations between them are asserted at load.
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
/** Recordings hold request bodies, so only their owner may read them. */
export const RECORDING_FILE_MODE = 0o600;
/** Most buffers one writev takes (Linux's IOV_MAX); a frame of more body chunks is written in several calls. */
export const RECORDING_WRITE_BATCH_BUFFERS_MAX = 1024;
/** Largest file start (magic, version, header frame): what RECORDING_FILE_BYTES_MIN leaves beside one largest frame, so a fresh file always takes the next frame. */
export const RECORDING_FILE_START_BYTES_MAX = RECORDING_FILE_BYTES_MIN - RECORDING_FRAME_BYTES_MAX - RECORDING_FRAME_PREFIX_BYTES;
/** Bytes the writer checksums (CRC-32 of bodies and fields) per macrotask before it yields to the event loop, so a large body never stalls requests. */
export const RECORDING_ENCODE_BYTES_PER_STEP = 1024 * 1024;

assert(RECORDING_FILE_BYTES_MIN > RECORDING_FRAME_BYTES_MAX + RECORDING_FRAME_PREFIX_BYTES, 'a file must hold its largest frame');
assert(RECORDING_QUEUE_BYTES_MAX >= RECORDING_FRAME_BYTES_MAX, 'the queue must hold one largest frame');
assert(RECORDING_FILE_START_BYTES_MAX >= 1024, 'a file start has room for a producer and a description');
assert(RECORDING_ENCODE_BYTES_PER_STEP > 0 && RECORDING_WRITE_BATCH_BUFFERS_MAX > 0, 'the writer makes progress in every step');
assert(RECORDING_FILES_DEFAULT <= RECORDING_FILES_MAX && RECORDING_FILE_BYTES_DEFAULT <= RECORDING_FILE_BYTES_MAX, 'defaults within their limits');
