// Owns every limit of `strata replay` as a named constant; relations between them are asserted at load.
import { assert } from '../core/assert.js';

/** Most requests replay keeps in flight (`--concurrency`). */
export const REPLAY_CONCURRENCY_MAX = 256;
/** Default in-flight requests of `strata replay`. */
export const REPLAY_CONCURRENCY_DEFAULT = 2;
/** Largest `--speed` factor. */
export const REPLAY_SPEED_MAX = 1000;
/** Frames replay decodes ahead of the one it sends (bounded look-ahead, so a large recording is streamed). */
export const REPLAY_READ_AHEAD_FRAMES = 1024;
/** Bytes of request bodies replay holds decoded ahead of the one it sends (with REPLAY_READ_AHEAD_FRAMES, whichever is reached first). */
export const REPLAY_READ_AHEAD_BYTES = 64 * 1024 * 1024;
/** How long one replayed request may take before it counts as a timeout error. */
export const REPLAY_REQUEST_TIMEOUT_MS = 60_000;
/** Highest latency a replay histogram tracks, in microseconds; larger values are recorded at it and counted as clamped in the report. */
export const REPLAY_LATENCY_US_MAX = 120_000_000;
/** Significant digits of the replay latency histograms (HdrHistogram). */
export const REPLAY_LATENCY_DIGITS = 3;
/** Highest lag the lag histogram tracks, in ms (a day); the reported maximum is exact, only the p99 saturates here. */
export const REPLAY_LAG_MS_MAX = 86_400_000;
/** Largest token response replay reads (a Keystone-style answer is a few hundred bytes). */
export const REPLAY_AUTH_BODY_BYTES_MAX = 1024 * 1024;
/** Shortest time between two re-authentications after a 401: a target that keeps refusing gets one token request per interval, not one per request. */
export const REPLAY_REAUTH_INTERVAL_MS = 1000;
/** Under --speed, a wait for the next request longer than this is announced on standard error. */
export const REPLAY_WAIT_NOTICE_MS = 5000;
/** Largest file `--compare` reads as a previous report (a report is a few KiB). */
export const REPLAY_REPORT_BYTES_MAX = 16 * 1024 * 1024;
/** Largest number a report's figures may hold (`--compare` refuses larger ones as damage). */
export const REPLAY_REPORT_NUMBER_MAX = Number.MAX_SAFE_INTEGER;

assert(REPLAY_CONCURRENCY_DEFAULT >= 1 && REPLAY_CONCURRENCY_DEFAULT <= REPLAY_CONCURRENCY_MAX, 'default concurrency within its limit');
assert(REPLAY_LATENCY_US_MAX >= REPLAY_REQUEST_TIMEOUT_MS * 1000, 'a request that times out still fits the latency histogram');
assert(REPLAY_READ_AHEAD_FRAMES >= 1 && REPLAY_READ_AHEAD_BYTES >= 1, 'look-ahead holds at least one frame');
