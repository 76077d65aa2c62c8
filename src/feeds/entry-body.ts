// Owns reading a published entry from a request body: an Atom entry document or its JSON form.
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { StrataError } from '../core/errors.js';
import { atomContentEncoding, type EntryContent, type NewEntry } from './feed-entry.js';

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  removeNSPrefix: true,
  // Titles and content are text, whatever they look like: never turn "1e3" into a number.
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  isArray: (name) => name === 'category',
});

const BASE64 = /^[A-Za-z0-9+/\s]*={0,2}\s*$/;

/** How fast-xml-parser names the element it refused in its error message ('Invalid name: "__proto__" ...'). */
const REFUSED_NAME = /Invalid name: "([^"]*)"/;

function invalid(message: string): StrataError {
  return new StrataError('FEED_ENTRY_INVALID', message);
}

/**
 * The text of a node that may be a plain string or an object with a text child and attributes;
 * undefined when it holds anything else (child elements), so markup is refused, never dropped.
 */
function textOf(node: unknown, textKey: string, isAttribute: (key: string) => boolean): string | undefined {
  if (typeof node === 'string') return node;
  if (typeof node !== 'object' || node === null || Array.isArray(node)) return undefined;
  const fields = node as Record<string, unknown>;
  if (Object.keys(fields).some((key) => key !== textKey && !isAttribute(key))) return undefined;
  const text = fields[textKey];
  return typeof text === 'string' ? text : text === undefined ? '' : undefined;
}

const isXmlAttribute = (key: string): boolean => key.startsWith('@_');
const isJsonAttribute = (key: string): boolean => key === 'type';

function attributeOf(node: unknown, name: string): string | undefined {
  if (typeof node !== 'object' || node === null) return undefined;
  const value = (node as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : undefined;
}

function decodeBase64(text: string): string {
  if (!BASE64.test(text)) throw invalid('Atom content of a non-text media type must be Base64 (RFC 4287, 4.1.3.3).');
  return Buffer.from(text.replace(/\s+/g, ''), 'base64').toString('utf8');
}

/**
 * The parsed document of well-formed XML. The parser still refuses documents it cannot represent
 * safely: an element named __proto__, constructor or prototype (it would reach Object.prototype)
 * throws a plain Error, which is the publisher's fault, so it is FEED_ENTRY_INVALID, never a 500.
 */
function parseXml(xml: string): Record<string, unknown> {
  try {
    return parser.parse(xml) as Record<string, unknown>;
  } catch (error) {
    const name = REFUSED_NAME.exec(String((error as Error | undefined)?.message))?.[1];
    if (name !== undefined) throw invalid(`An entry document may not use the name ${JSON.stringify(name)}, which is reserved in JavaScript objects.`);
    throw invalid('The body is not an Atom entry document this service can read.');
  }
}

/**
 * A JSON document without the keys Strata's other JSON bodies refuse (fastify's own parser does):
 * `__proto__`, and `constructor` holding a `prototype`. Neither can pollute here (JSON.parse makes
 * them own properties), but a body one API refuses should not be silently taken by another.
 */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text, (key: string, value: unknown) => {
      if (key === '__proto__' || (key === 'constructor' && typeof value === 'object' && value !== null && Object.hasOwn(value, 'prototype'))) {
        throw invalid(`An entry may not use the key ${JSON.stringify(key)}${key === 'constructor' ? ' with a prototype' : ''}.`);
      }
      return value;
    });
  } catch (error) {
    if (error instanceof StrataError) throw error;
    throw invalid('The body is not valid JSON.');
  }
}

/** Reads an Atom `<entry>` document (default or prefixed Atom namespace). Throws FEED_ENTRY_INVALID. */
export function entryFromAtom(xml: string): NewEntry {
  // A DOCTYPE can declare entities that expand without bound; an entry never needs one.
  if (/<!DOCTYPE/i.test(xml)) throw invalid('An entry document may not carry a DOCTYPE.');
  if (XMLValidator.validate(xml) !== true) throw invalid('The body is not well-formed XML.');
  const document = parseXml(xml);
  const entry = document['entry'];
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) throw invalid('The body must be one Atom <entry> element.');
  const fields = entry as Record<string, unknown>;
  const title = textOf(fields['title'], '#text', isXmlAttribute);
  if (title === undefined) throw invalid('An entry needs one <title> of text.');
  const categories = ((fields['category'] as unknown[] | undefined) ?? []).map((node) => attributeOf(node, '@_term') ?? '');
  let content: EntryContent | undefined;
  if (fields['content'] !== undefined) {
    const type = attributeOf(fields['content'], '@_type') ?? 'text';
    const text = textOf(fields['content'], '#text', isXmlAttribute);
    if (text === undefined) throw invalid('An entry <content> must hold text (XML content is not supported).');
    content = { type, text: atomContentEncoding(type) === 'base64' ? decodeBase64(text) : text };
  }
  return { title, categories, ...(content !== undefined ? { content } : {}) };
}

/** Reads `{"entry": {"title", "category": [{"term"}], "content": {"type", "@text"}}}`. Throws FEED_ENTRY_INVALID. */
export function entryFromJson(text: string): NewEntry {
  const document = parseJson(text);
  const entry = (document as { entry?: unknown } | null)?.entry;
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) throw invalid('The body must be {"entry": {...}}.');
  const fields = entry as Record<string, unknown>;
  const title = textOf(fields['title'], '@text', isJsonAttribute);
  if (title === undefined) throw invalid('entry.title must be a string or {"@text": string}.');
  const rawCategories = fields['category'] ?? [];
  if (!Array.isArray(rawCategories)) throw invalid('entry.category must be an array of {"term": string}.');
  const categories = rawCategories.map((node) => attributeOf(node, 'term') ?? '');
  let content: EntryContent | undefined;
  if (fields['content'] !== undefined) {
    const type = attributeOf(fields['content'], 'type') ?? 'text';
    const body = textOf(fields['content'], '@text', isJsonAttribute);
    if (body === undefined) throw invalid('entry.content must be a string or {"type": string, "@text": string}.');
    content = { type, text: body };
  }
  return { title, categories, ...(content !== undefined ? { content } : {}) };
}
