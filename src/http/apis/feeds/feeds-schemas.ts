// Owns the JSON schemas of the event-feed API's URLs and page parameters (their value rules are the feeds room's, feed-paging.ts).
import { TENANT_PARAM } from '../../common-schemas.js';
import { FEED_PAGE_MAX } from '../../../feeds/feeds-limits.js';


/** The URL of one entry. */
export const ENTRY_PARAMS_SCHEMA = {
  type: 'object',
  required: ['tenant', 'entryId'],
  properties: { tenant: TENANT_PARAM, entryId: { type: 'string', minLength: 1, description: 'The entry id (urn:uuid:...).' } },
} as const;

/** A feed page's parameters, each at most once (the reference's names); feed-paging.ts checks their values. */
export const FEED_QUERY_SCHEMA = {
  type: 'object',
  properties: {
    limit: { type: 'string', description: `Entries per page, 1 to ${FEED_PAGE_MAX}.` },
    marker: { type: 'string', description: "An entry id to page from, or 'last' for the oldest page." },
    direction: { type: 'string', description: 'forward (newer entries) or backward (older ones) from the marker.' },
    search: { type: 'string', description: 'Category filters: only the empty value the links carry is supported.' },
    startingAt: { type: 'string', description: 'Not supported by this service (refused); page with marker.' },
  },
} as const;
