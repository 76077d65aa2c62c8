// Owns every limit of the event-feed service as a named constant; relations are asserted at load.
import { assert } from '../core/assert.js';

/** Entries per page when no limit is given (the reference's default). */
export const FEED_PAGE_DEFAULT = 25;
/** Most entries one page may hold (the reference's limit range is 1 to 1000). */
export const FEED_PAGE_MAX = 1000;
/** Largest body of a published entry, in bytes; an entry is a notification, not a document. */
export const FEED_ENTRY_BYTES_MAX = 64 * 1024;
/** Longest entry title, in characters. */
export const FEED_TITLE_LENGTH_MAX = 256;
/** Most categories an entry may carry, counting the tid:, rgn: and type: terms the service adds. */
export const FEED_CATEGORIES_MAX = 32;
/** Longest category term, in characters. */
export const FEED_CATEGORY_LENGTH_MAX = 256;
/** Longest entry content, in characters. */
export const FEED_CONTENT_LENGTH_MAX = 48 * 1024;
/** Longest marker parameter: "urn:uuid:" and a 36-character UUID, with room to spare. */
export const FEED_MARKER_LENGTH_MAX = 64;

assert(FEED_PAGE_DEFAULT <= FEED_PAGE_MAX, 'the default page must fit the largest page');
assert(FEED_CONTENT_LENGTH_MAX < FEED_ENTRY_BYTES_MAX, 'the largest content must fit in the largest body');
