// Owns the Atom XML views: a feed page, one entry, and the feeds catalog as an Atom service document.
import { XMLBuilder } from 'fast-xml-parser';
import { atomContentEncoding, type FeedEntry } from './feed-entry.js';
import type { FeedInfo } from './feed-catalog.js';
import type { FeedPage } from './feeds-service.js';
import { entryHref, feedId, linkHref, type FeedAddress } from './feed-links.js';
import { isoUtc } from '../core/time.js';

/** The Atom namespace. */
export const ATOM_NS = 'http://www.w3.org/2005/Atom';
/** The Atom Publishing Protocol namespace of service documents. */
export const APP_NS = 'http://www.w3.org/2007/app';

const builder = new XMLBuilder({ ignoreAttributes: false, attributeNamePrefix: '@_', format: true, suppressEmptyNode: true });
const DECLARATION = { '?xml': { '@_version': '1.0', '@_encoding': 'UTF-8' } };

function contentNode(entry: FeedEntry): Record<string, string> | undefined {
  if (entry.content === undefined) return undefined;
  const { type, text } = entry.content;
  const body = atomContentEncoding(type) === 'base64' ? Buffer.from(text, 'utf8').toString('base64') : text;
  return { '@_type': type, '#text': body };
}

function entryNode(address: FeedAddress, entry: FeedEntry): Record<string, unknown> {
  const content = contentNode(entry);
  return {
    id: entry.id,
    category: entry.categories.map((term) => ({ '@_term': term })),
    title: { '@_type': 'text', '#text': entry.title },
    ...(content !== undefined ? { content } : {}),
    link: [{ '@_href': entryHref(address, entry.id), '@_rel': 'self' }],
    updated: isoUtc(entry.updatedMs),
    published: isoUtc(entry.updatedMs),
  };
}

/**
 * A feed page as an Atom feed document. Atom requires id, title, updated and an author on every
 * feed, empty ones included; `updated` is the newest entry's time, or `nowMs` on an empty page.
 */
export function atomFeed(address: FeedAddress, feed: FeedInfo, page: FeedPage, nowMs: number): string {
  const first = page.entries[0];
  return builder.build({
    ...DECLARATION,
    feed: {
      '@_xmlns': ATOM_NS,
      link: page.links.map((link) => ({ '@_href': linkHref(address, link.request), '@_rel': link.rel })),
      id: feedId(address),
      title: { '@_type': 'text', '#text': feed.title },
      updated: isoUtc(first?.updatedMs ?? nowMs),
      author: { name: 'Strata' },
      entry: page.entries.map((entry) => entryNode(address, entry)),
    },
  }) as string;
}

/** One entry as an Atom entry document. */
export function atomEntry(address: FeedAddress, entry: FeedEntry): string {
  return builder.build({ ...DECLARATION, entry: { '@_xmlns': ATOM_NS, ...entryNode(address, entry), author: { name: 'Strata' } } }) as string;
}

/** The catalog of a tenant's feeds as an Atom service document: one workspace per feed. */
export function atomService(tenantUrl: string, feeds: readonly FeedInfo[]): string {
  return builder.build({
    ...DECLARATION,
    service: {
      '@_xmlns': APP_NS,
      '@_xmlns:atom': ATOM_NS,
      workspace: feeds.map((feed) => ({
        'atom:title': feed.title,
        collection: { '@_href': `${tenantUrl}/${feed.path}`, 'atom:title': feed.title },
      })),
    },
  }) as string;
}
