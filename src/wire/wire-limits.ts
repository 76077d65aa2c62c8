// Owns every limit of the ingest body codecs as a named constant; relations between them are asserted at load.
import { assert } from '../core/assert.js';
import { INGEST_BATCH_POINTS_MAX } from '../core/limits.js';

/** Names one decoder's name cache keeps at most; past it the cache starts over (a workload's names come back within a batch). */
export const NAME_CACHE_ENTRIES_MAX = 100_000;
/** Largest ttlInSeconds (Blueflood: Integer.MAX_VALUE). */
export const TTL_SECONDS_MAX = 2_147_483_647;
/** Spare point-column builders one decoder keeps for the next batches (more in flight allocate their own). */
export const SPARE_COLUMN_BUILDERS_MAX = 16;

assert(NAME_CACHE_ENTRIES_MAX >= INGEST_BATCH_POINTS_MAX, 'the name cache holds every distinct name of one full batch');
assert(Number.isSafeInteger(TTL_SECONDS_MAX) && TTL_SECONDS_MAX <= 2 ** 31 - 1, 'ttlInSeconds fits the Java int Blueflood keeps it in');
assert(SPARE_COLUMN_BUILDERS_MAX >= 1, 'a decoder keeps at least one spare builder, or every batch allocates its columns');
