// Owns the JSON views of feeds, shaped as the reference's JSON forms of Atom: feed page, entry, catalog.
import type { FeedInfo } from './feed-catalog.js';
import type { FeedEntry } from './feed-entry.js';
import type { FeedPage } from './feeds-service.js';
import { entryHref, feedId, linkHref, type FeedAddress } from './feed-links.js';
import { ATOM_NS } from './atom-view.js';
import { isoUtc } from '../core/time.js';

function entryObject(address: FeedAddress, entry: FeedEntry): Record<string, unknown> {
  return {
    '@type': ATOM_NS,
    id: entry.id,
    category: entry.categories.map((term) => ({ term })),
    title: { type: 'text', '@text': entry.title },
    // JSON carries text as it is: Base64 is only Atom's way of putting non-text content in XML.
    ...(entry.content !== undefined ? { content: { type: entry.content.type, '@text': entry.content.text } } : {}),
    link: [{ href: entryHref(address, entry.id), rel: 'self' }],
    updated: isoUtc(entry.updatedMs),
    published: isoUtc(entry.updatedMs),
  };
}

/** A feed page as `{"feed": {...}}`. */
export function jsonFeed(address: FeedAddress, feed: FeedInfo, page: FeedPage, nowMs: number): Record<string, unknown> {
  return {
    feed: {
      '@type': ATOM_NS,
      link: page.links.map((link) => ({ href: linkHref(address, link.request), rel: link.rel })),
      id: feedId(address),
      title: { type: 'text', '@text': feed.title },
      updated: isoUtc(page.entries[0]?.updatedMs ?? nowMs),
      entry: page.entries.map((entry) => entryObject(address, entry)),
    },
  };
}

/** One entry as `{"entry": {...}}`. */
export function jsonEntry(address: FeedAddress, entry: FeedEntry): Record<string, unknown> {
  return { entry: entryObject(address, entry) };
}

/** The catalog as `{"service": {"workspace": [...]}}`. */
export function jsonService(tenantUrl: string, feeds: readonly FeedInfo[]): Record<string, unknown> {
  return {
    service: {
      workspace: feeds.map((feed) => ({ collection: { href: `${tenantUrl}/${feed.path}`, title: feed.title }, title: feed.title })),
    },
  };
}
