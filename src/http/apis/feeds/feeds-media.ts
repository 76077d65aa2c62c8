// Owns the media types of the event-feed API and which of them a request gets.
import { JSON_TYPE, XML_TYPE } from '../../route-rules.js';

/** An Atom feed or entry document. */
export const ATOM_TYPE = 'application/atom+xml';
/** An Atom service document (the feeds catalog). */
export const ATOM_SERVICE_TYPE = 'application/atomsvc+xml';
/** The reference's JSON form of an Atom feed or entry. */
export const ATOM_JSON_TYPE = 'application/vnd.rackspace.atom+json';
/** The reference's JSON form of a service document. */
export const ATOM_SERVICE_JSON_TYPE = 'application/vnd.rackspace.atomsvc+json';
/** What feed and entry routes answer with; the first is the default. */
export const FEED_PRODUCES: readonly [string, ...string[]] = [ATOM_TYPE, XML_TYPE, JSON_TYPE, ATOM_JSON_TYPE];
/** What the catalog answers with; the first is the default. */
export const SERVICE_PRODUCES: readonly [string, ...string[]] = [ATOM_SERVICE_TYPE, XML_TYPE, JSON_TYPE, ATOM_SERVICE_JSON_TYPE];

/** True when a chosen media type is one of the JSON forms. */
export function isJsonType(type: string): boolean {
  return type === JSON_TYPE || type.endsWith('+json');
}
