// Owns the event-feed service: publishing entries (id, time and service terms assigned) and reading pages.
import { randomUUID } from 'node:crypto';
import type { Clock } from '../core/clock.js';
import { StrataError } from '../core/errors.js';
import { ALERT_CATEGORY_PREFIX, MONITORING_ALERTS_FEED, type FeedInfo } from './feed-catalog.js';
import { checkNewEntry, entryCategories, type FeedEntry, type NewEntry } from './feed-entry.js';
import { LAST_MARKER, pageLinks, type PageLink, type PageRequest } from './feed-paging.js';
import { FeedsStore } from './feeds-store.js';

/** Options of openFeeds. */
export interface FeedsOptions {
  /** Data directory for feeds.sqlite; undefined keeps the entries in memory (tests, embedded use). */
  readonly dir: string | undefined;
  readonly clock: Clock;
  /** Region named in every entry's rgn: term. */
  readonly region: string;
}

/** One page of a feed: entries newest first, and its links. */
export interface FeedPage {
  readonly entries: readonly FeedEntry[];
  readonly links: readonly PageLink[];
}

/** A page's entries (newest first) and whether the feed holds entries older than its oldest. */
interface EntriesAndBeyond {
  readonly entries: FeedEntry[];
  readonly olderExist: boolean;
}

/** Splits up to limit + 1 rows read newest first toward older entries: the extra row only says that older ones exist. */
function splitOlder(rows: FeedEntry[], limit: number): EntriesAndBeyond {
  return rows.length > limit ? { entries: rows.slice(0, limit), olderExist: true } : { entries: rows, olderExist: false };
}

/** The event-feed service of all tenants; each read and write names its tenant. */
export class Feeds {
  private readonly store: FeedsStore;
  private readonly clock: Clock;
  /** Region named in every entry's rgn: term. */
  readonly region: string;

  constructor(options: FeedsOptions) {
    this.store = new FeedsStore(options.dir);
    this.clock = options.clock;
    this.region = options.region;
  }

  /** Publishes an entry to a tenant's feed; throws FEED_ENTRY_INVALID when the entry breaks a rule. */
  publish(tenant: string, feed: FeedInfo, entry: NewEntry): FeedEntry {
    checkNewEntry(entry);
    return this.store.append({
      id: `urn:uuid:${randomUUID()}`,
      tenant,
      feed: feed.path,
      title: entry.title,
      categories: entryCategories(entry, feed, tenant, this.region),
      content: entry.content,
      updatedMs: this.clock.now(),
    });
  }

  /** One page of a tenant's feed; throws FEED_MARKER_NOT_FOUND when the marker names no entry of it. */
  page(tenant: string, feed: FeedInfo, request: PageRequest): FeedPage {
    const { entries, olderExist } = this.pageEntries(tenant, feed.path, request);
    return { entries, links: pageLinks(request, entries, olderExist) };
  }

  /**
   * The entries of a page and whether older ones exist beyond it, from one page query: reading
   * toward older entries fetches one row past the limit, and that row's presence is the answer.
   */
  private pageEntries(tenant: string, feed: string, request: PageRequest): EntriesAndBeyond {
    const { marker, limit } = request;
    if (marker === undefined) return splitOlder(this.store.newest(tenant, feed, limit + 1), limit);
    // The oldest page holds the feed's oldest entry, so nothing is older than it.
    if (marker === LAST_MARKER) return { entries: this.store.oldest(tenant, feed, limit), olderExist: false };
    const at = this.store.entry(tenant, feed, marker);
    if (at === undefined) throw new StrataError('FEED_MARKER_NOT_FOUND', `No entry ${marker} in this feed.`, { marker });
    // The marker entry itself belongs to the page it came from, so neither direction repeats it.
    if (request.direction === 'backward') return splitOlder(this.store.olderThan(tenant, feed, at.seq, limit + 1), limit);
    // Every entry of a forward page is newer than the marker entry, which is older and was just
    // read (entries are never deleted), so older entries exist exactly when the page has any.
    const entries = this.store.newerThan(tenant, feed, at.seq, limit);
    return { entries, olderExist: entries.length > 0 };
  }

  /** The entry with this id in a tenant's feed, if any. */
  entry(tenant: string, feed: FeedInfo, id: string): FeedEntry | undefined {
    return this.store.entry(tenant, feed.path, id);
  }

  /** Closes the feeds file. */
  close(): void {
    this.store.close();
  }
}

/** Opens the event-feed service over `dir/feeds.sqlite` (or memory). */
export function openFeeds(options: FeedsOptions): Feeds {
  return new Feeds(options);
}

/**
 * Publishes an eventFeed notification to a tenant's monitoring alerts feed: the entry gets the
 * category `monitoring.alerts.<category>` (spec 2.5, 6.2), which also becomes its type: term.
 */
export function publishAlert(feeds: Feeds, tenant: string, category: string, entry: Omit<NewEntry, 'categories'>): FeedEntry {
  return feeds.publish(tenant, MONITORING_ALERTS_FEED, { ...entry, categories: [`${ALERT_CATEGORY_PREFIX}${category}`] });
}
