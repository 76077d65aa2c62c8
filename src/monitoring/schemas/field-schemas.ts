// Owns the property schemas several monitoring bodies share: labels, metadata, object ids, http URLs.
import { LABEL_LENGTH_MAX, METADATA_ENTRIES_MAX, METADATA_TEXT_LENGTH_MAX, OBJECT_ID_LENGTH_MAX } from '../monitoring-limits.js';
import type { JsonSchema } from './json-schema.js';

/** Metadata as stored: string keys to string values. */
export type Metadata = Readonly<Record<string, string>>;

/**
 * An absolute http or https URL with a host and no whitespace: the scheme (any case), `//`, an
 * optional user-info part, a host (a bracketed IPv6 address or a name without the characters a URL
 * host may not hold), an optional port of up to five digits, then an optional path, query or fragment.
 */
export const HTTP_URL_PATTERN = '^[Hh][Tt][Tt][Pp][Ss]?://(?:[^\\s/?#@]*@)?(?:\\[[0-9A-Fa-f:.]+\\]|[^\\s/?#@:\\[\\]\\\\<>^|"`{}]+)(?::[0-9]{0,5})?(?:[/?#]\\S*)?$';

/** A label: 1 to LABEL_LENGTH_MAX characters. */
export function labelSchema(description: string): JsonSchema {
  return { type: 'string', minLength: 1, maxLength: LABEL_LENGTH_MAX, description };
}

/** A label that may be null (no label). */
export function nullableLabelSchema(description: string): JsonSchema {
  return { type: ['string', 'null'], minLength: 1, maxLength: LABEL_LENGTH_MAX, description };
}

/** The id of another monitoring object the body refers to. */
export function objectIdSchema(description: string): JsonSchema {
  return { type: 'string', minLength: 1, maxLength: OBJECT_ID_LENGTH_MAX, description };
}

/** An absolute http or https URL of at most `maxLength` characters. */
export function httpUrlSchema(maxLength: number, description: string): JsonSchema {
  return { type: 'string', minLength: 1, maxLength, pattern: HTTP_URL_PATTERN, description };
}

/**
 * Metadata: null or at most METADATA_ENTRIES_MAX entries whose keys and values are strings of 1 to
 * METADATA_TEXT_LENGTH_MAX characters (the reference: "null is not a valid value").
 */
export const METADATA_SCHEMA: JsonSchema = {
  type: ['object', 'null'],
  maxProperties: METADATA_ENTRIES_MAX,
  propertyNames: { minLength: 1, maxLength: METADATA_TEXT_LENGTH_MAX },
  additionalProperties: { type: 'string', minLength: 1, maxLength: METADATA_TEXT_LENGTH_MAX },
  description: `Free-form string pairs kept with the object for the client's own use, or null for none: at most ${METADATA_ENTRIES_MAX} entries, keys and values of 1 to ${METADATA_TEXT_LENGTH_MAX} characters.`,
};
