// Owns the fast-check arbitraries of hostile request parts: path segments, query strings and headers.
import fc from 'fast-check';
import { PATH_PARAM_LENGTH_MAX } from '../../src/http/http-limits.js';

/** Names that break code treating input as object keys. */
export const RESERVED_NAMES = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__', 'isPrototypeOf'] as const;

/** Text that has tripped URL and number handling elsewhere: dots, encodings, numbers in every spelling, device names. */
const NASTY_TEXTS = [
  '', ' ', '.', '..', '...', '%2e', '%2e%2e', '%2E%2E%2F', '../..', '..%2f..%2fetc%2fpasswd', '%00', '\u0000', 'a\u0000b',
  '%', '%%', '%zz', '%1', '%C0%AF', '%ff', '%FF%FE', '%E0%A4%A', '%ED%A0%80', '%2F', '%252F', '%5C', '\\', '//', ';', 'a;b=c', '*', '**', '?', '#', '&', '=',
  'null', 'undefined', 'NaN', 'Infinity', '-Infinity', 'true', '[]', '{}', '-1', '-0', '0', '00', '1.5', '1e3', '1e309', '0x10', '0b1', '0o7', '+5', ' 5 ',
  '9007199254740993', '-9007199254740993', '99999999999999999999999999', 'CON', 'NUL', 'AUX', 'COM1', 'urn:uuid:00000000-0000-0000-0000-000000000000',
  '\u202e', '\ufeff', '\u200b', '\ud83d\ude00', '\uffff', 'Ω', 'ǅ', 'İ', 'ß', '<script>', '"\'', '${x}', '{{x}}', '%s%n', 'a\tb', 'a\nb', 'a\rb',
] as const;

/** Any text fast-check can draw: every code point, lone surrogates included. */
const anyText = (maxLength: number): fc.Arbitrary<string> =>
  fc.oneof(fc.string({ unit: 'binary', maxLength }), fc.string({ unit: 'grapheme', maxLength }), fc.string({ maxLength }));

/** A long run of one piece, around the lengths limits are set at. */
function huge(pieces: readonly string[], lengths: fc.Arbitrary<number>): fc.Arbitrary<string> {
  return fc.tuple(fc.constantFrom(...pieces), lengths).map(([piece, length]) => piece.repeat(Math.ceil(length / piece.length)).slice(0, length));
}

/** Lengths near the router's parameter limit and beyond. */
const PARAM_LENGTHS = fc.oneof(
  fc.integer({ min: PATH_PARAM_LENGTH_MAX - 2, max: PATH_PARAM_LENGTH_MAX + 2 }),
  fc.integer({ min: 256, max: 10_000 }),
  fc.integer({ min: 120, max: 260 }),
);

/** Hostile text for any place a string goes. */
export function hostileText(maxLength = 48): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...NASTY_TEXTS) },
    { weight: 2, arbitrary: fc.constantFrom(...RESERVED_NAMES) },
    { weight: 3, arbitrary: anyText(maxLength) },
    { weight: 1, arbitrary: huge(['a', 'é', '%', '%41', '\ud83d\ude00', '.', '/', '%2F', '*a'], PARAM_LENGTHS) },
  );
}

/** Percent-encodes text the way a client would; a lone surrogate (which encodeURIComponent refuses) as its UTF-16 unit bytes. */
export function encodeSegment(text: string): string {
  let out = '';
  for (const char of text) {
    try {
      out += encodeURIComponent(char);
    } catch {
      out += `%${char.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0').match(/../g)?.join('%')}`;
    }
  }
  return out;
}

/** A path parameter: the world's valid value for it (so the request reaches deeper), or hostile text sent encoded or as is. */
export type Segment = { readonly kind: 'known' } | { readonly kind: 'text'; readonly text: string; readonly encoded: boolean };

/** A path parameter, mostly valid where `knownWeight` is high (the tenant), mostly hostile elsewhere. */
export function segmentArb(knownWeight: number): fc.Arbitrary<Segment> {
  return fc.oneof(
    { weight: knownWeight, arbitrary: fc.constant<Segment>({ kind: 'known' }) },
    { weight: 3, arbitrary: fc.record({ kind: fc.constant('text' as const), text: hostileText(), encoded: fc.boolean() }) },
  );
}

/** Renders a segment: the known value encoded, or the hostile text as chosen. */
export function renderSegment(segment: Segment, known: string): string {
  if (segment.kind === 'known') return encodeURIComponent(known);
  return segment.encoded ? encodeSegment(segment.text) : segment.text;
}

/** A query parameter pair: a key (documented, reserved or junk) and a value, sent encoded or raw. */
export interface QueryPair {
  readonly key: string;
  readonly value: string | null;
  readonly encoded: boolean;
}

/** Values a numeric or enum parameter must refuse or accept cleanly. */
const QUERY_VALUES = [
  '', ' ', '-1', '0', '1', '2', '-0', '+1', '1.5', '0.0001', '1e3', '1e309', '-1e309', '0x10', '0b1', '010', '1_000', '1,2', '1 2', ' 1', '1 ',
  '9007199254740991', '9007199254740993', '-9007199254740993', '18446744073709551616', '99999999999999999999999999999999', 'NaN', 'Infinity',
  'true', 'false', 'null', 'FULL', 'full', 'MIN5', 'MIN1440', 'min1440', 'MIN0', 'average', 'min,max,variance,numPoints', 'average,,', ',',
  'forward', 'backward', 'last', 'first', '*', '**', '?', 'a*', '*.*', '__proto__', 'constructor',
] as const;

/**
 * A hostile query string: documented keys with junk or plausible values, reserved and unknown
 * keys, repeats, bracket arrays, and separators out of place.
 */
export function queryArb(documented: readonly string[], plausible: (key: string) => fc.Arbitrary<string>): fc.Arbitrary<QueryPair[]> {
  const keys = fc.oneof(
    ...(documented.length > 0 ? [{ weight: 6, arbitrary: fc.constantFrom(...documented) }] : []),
    { weight: 1, arbitrary: fc.constantFrom(...RESERVED_NAMES, '', 'unknown', 'limit[]', 'a[b]', 'a.b', '%', '&', '=', ' ', 'LIMIT', 'From') },
    { weight: 1, arbitrary: hostileText(16) },
    ...documented.map((key) => ({ weight: 1, arbitrary: fc.constant(`${key}[]`) })),
  );
  const pair = keys.chain((key) =>
    fc.record({
      key: fc.constant(key),
      value: fc.oneof(
        { weight: 3, arbitrary: plausible(key) },
        { weight: 3, arbitrary: fc.constantFrom(...QUERY_VALUES) },
        { weight: 2, arbitrary: hostileText(32) },
        { weight: 1, arbitrary: fc.constant(null) },
      ),
      encoded: fc.boolean(),
    }),
  );
  // Repeats of one pair (`limit=1&limit=2`) come from duplicating drawn pairs.
  return fc.tuple(fc.array(pair, { maxLength: 8 }), fc.nat({ max: 3 })).map(([pairs, repeats]) => {
    const first = pairs[0];
    return first === undefined ? pairs : [...pairs, ...Array.from({ length: repeats }, () => first)];
  });
}

/** Renders a query string (without `?`): `key=value` pairs, encoded or raw; a null value is a bare key. */
export function renderQuery(pairs: readonly QueryPair[]): string {
  return pairs
    .map(({ key, value, encoded }) => {
      const k = encoded ? encodeSegment(key) : key;
      if (value === null) return k;
      return `${k}=${encoded ? encodeSegment(value) : value}`;
    })
    .join('&');
}

/** A header value an HTTP parser would pass on: visible ASCII, space, tab and obs-text (no CR, LF or NUL). */
export function headerText(maxLength = 64): fc.Arbitrary<string> {
  const unit = fc.oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.constant(0x09), fc.integer({ min: 0x80, max: 0xff })).map((code) => String.fromCharCode(code));
  return fc.string({ unit, maxLength });
}

/** Media types with their parameters right, wrong and odd. */
const CONTENT_TYPES = [
  'application/json', 'application/json; charset=utf-8', 'application/json; charset=UTF-16', 'application/json; charset=junk', 'application/json;charset=',
  'application/json;;;', 'APPLICATION/JSON', 'application/json ; foo="bar', 'application/json, text/plain', 'application/jsonx', 'application/json5',
  'application/x-msgpack', 'application/x-msgpack; charset=utf-8', 'application/msgpack', 'application/atom+xml', 'application/atom+xml; charset=iso-8859-1',
  'application/xml', 'text/xml', 'application/vnd.rackspace.atom+json', 'text/plain', 'text/html', 'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x', 'multipart/form-data', 'application/octet-stream', '*/*', 'application/*', '/', ';', '', ' ', 'json', 'application/',
] as const;

/** Accept headers: sensible, impossible, malformed, or q-values out of range. */
const ACCEPTS = [
  '*/*', 'application/json', 'application/xml', 'application/atom+xml', 'application/x-msgpack', 'text/plain', 'text/html', 'image/png', 'application/*',
  'application/json;q=0', '*/*;q=0', 'application/json;q=2', 'application/json;q=-1', 'application/json;q=abc', 'application/json;q=0.5, application/xml;q=0.9',
  ',,,', ';', ';q=1', '*', '*/', '/*', 'application/json;', 'application/vnd.rackspace.atom+json', 'application/atomsvc+xml', 'text/plain; version=0.0.4',
] as const;

/** Basic credentials: missing parts, bad Base64, wrong key, other schemes. */
const AUTHORIZATIONS = [
  'Basic', 'Basic ', 'Basic !!!', 'Basic Og==', 'Basic YQ==', `Basic ${Buffer.from('alice:wrong').toString('base64')}`, `Basic ${Buffer.from(':').toString('base64')}`,
  `Basic ${Buffer.from('alice').toString('base64')}`, `Basic ${Buffer.from('\u0000:\u0000').toString('base64')}`, 'Bearer x', 'basic    ', 'Digest a=b',
] as const;

/** A Content-Type: one the route reads, a mismatch, junk, or none. */
export function contentTypeArb(ownTypes: readonly string[]): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    { weight: 3, arbitrary: ownTypes.length > 0 ? fc.constantFrom(...ownTypes) : fc.constant('application/json') },
    { weight: 4, arbitrary: fc.constantFrom(...CONTENT_TYPES) },
    { weight: 1, arbitrary: headerText(40) },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
}

/** Hostile headers besides the credentials and Content-Type: Accept, charsets, a wrong Content-Length, odd extras. */
export function extraHeadersArb(): fc.Arbitrary<Record<string, string>> {
  return fc.record(
    {
      accept: fc.oneof(fc.constantFrom(...ACCEPTS), headerText(80)),
      'accept-charset': fc.oneof(fc.constantFrom('utf-8', 'junk', 'utf-16;q=0', '*'), headerText(20)),
      'accept-encoding': fc.constantFrom('gzip', 'br', 'identity;q=0', '*;q=0', 'junk'),
      'content-length': fc.constantFrom('0', '1', '-1', 'abc', '99999999999', '1e3', ' 5', '18446744073709551616'),
      'x-auth-project-id': headerText(40),
      'x-http-method-override': fc.constantFrom('DELETE', 'PUT', 'junk'),
      'x-forwarded-for': fc.constantFrom('::1', '1.2.3.4, 5.6.7.8', 'junk'),
      authorization: fc.constantFrom(...AUTHORIZATIONS),
    },
    { requiredKeys: [] },
  );
}
