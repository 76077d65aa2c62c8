// Owns the feed entry: its shape, the rules a published entry must keep, and the terms the service adds.
import { StrataError } from '../core/errors.js';
import type { FeedInfo } from './feed-catalog.js';
import { FEED_CATEGORIES_MAX, FEED_CATEGORY_LENGTH_MAX, FEED_CONTENT_LENGTH_MAX, FEED_TITLE_LENGTH_MAX } from './feeds-limits.js';

/** An entry's content: a media type (Atom's "text", or e.g. application/json) and its text. */
export interface EntryContent {
  readonly type: string;
  readonly text: string;
}

/** What a publisher supplies. */
export interface NewEntry {
  readonly title: string;
  /** Category terms; tid:, rgn: and type: terms are the service's and are replaced. */
  readonly categories: readonly string[];
  readonly content?: EntryContent;
}

/** A stored entry. */
export interface FeedEntry {
  /** Order within its feed: a higher seq is newer. */
  readonly seq: number;
  /** `urn:uuid:<uuid>`. */
  readonly id: string;
  readonly tenant: string;
  readonly feed: string;
  readonly title: string;
  readonly categories: readonly string[];
  readonly content: EntryContent | undefined;
  readonly updatedMs: number;
}

/** Prefixes of the terms only the service writes: tenant, region and event type. */
export const SERVICE_TERM_PREFIXES = ['tid:', 'rgn:', 'type:'] as const;

// Printable text without control characters (tab, newline and carriage return allowed in content).
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;
const MEDIA_TYPE = /^(text|html|[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+)$/i;

/**
 * How an Atom document carries content of a type (RFC 4287 section 4.1.3.3): text, html and text/*
 * as text; XML types (and xhtml) as child elements, which this service does not store; every other
 * media type (application/json, say) as Base64.
 */
export function atomContentEncoding(type: string): 'text' | 'base64' | 'unsupported' {
  const lower = type.toLowerCase();
  if (lower === 'text' || lower === 'html' || lower.startsWith('text/')) return 'text';
  if (lower === 'xhtml' || lower.endsWith('/xml') || lower.endsWith('+xml')) return 'unsupported';
  return 'base64';
}

function invalid(message: string, details: Record<string, unknown> = {}): StrataError {
  return new StrataError('FEED_ENTRY_INVALID', message, details);
}

function isServiceTerm(term: string): boolean {
  return SERVICE_TERM_PREFIXES.some((prefix) => term.startsWith(prefix));
}

function checkText(name: string, text: string, max: number, allowNewlines: boolean): void {
  if (text.length > max) throw invalid(`${name} is longer than ${max} characters.`, { field: name });
  if (CONTROL.test(text) || (!allowNewlines && /[\t\n\r]/.test(text))) throw invalid(`${name} holds control characters.`, { field: name });
}

/** Throws FEED_ENTRY_INVALID unless the publisher's entry keeps the rules (non-empty title, bounded sizes, plain text). */
export function checkNewEntry(entry: NewEntry): void {
  if (entry.title.trim() === '') throw invalid('An entry needs a non-empty title.', { field: 'title' });
  checkText('title', entry.title, FEED_TITLE_LENGTH_MAX, false);
  for (const term of entry.categories) {
    if (term === '') throw invalid('A category term is empty.', { field: 'category' });
    checkText('category', term, FEED_CATEGORY_LENGTH_MAX, false);
  }
  if (entry.content !== undefined) {
    if (!MEDIA_TYPE.test(entry.content.type) || atomContentEncoding(entry.content.type) === 'unsupported') {
      throw invalid(`Content type ${entry.content.type} is not text, html or a non-XML media type.`, { field: 'content' });
    }
    checkText('content', entry.content.text, FEED_CONTENT_LENGTH_MAX, true);
  }
}

/**
 * The categories a stored entry carries: the publisher's own terms (minus any service term, which
 * a publisher may not forge), then tid:, rgn: and type:. The type is the first plain term (one
 * without a prefix, e.g. monitoring.alerts.cpu) or the feed's default type. Throws
 * FEED_ENTRY_INVALID when they would exceed FEED_CATEGORIES_MAX.
 */
export function entryCategories(entry: NewEntry, feed: FeedInfo, tenant: string, region: string): string[] {
  const own = [...new Set(entry.categories.filter((term) => !isServiceTerm(term)))];
  const eventType = own.find((term) => !term.includes(':')) ?? feed.defaultType;
  const all = [...own, `tid:${tenant}`, `rgn:${region}`, `type:${eventType}`];
  if (all.length > FEED_CATEGORIES_MAX) {
    throw invalid(`An entry may carry at most ${FEED_CATEGORIES_MAX} categories, the service's three included.`, { field: 'category' });
  }
  return all;
}
