// Owns the fast-check arbitraries of hostile bodies: JSON values and texts, byte mutations of valid bodies, and hostile XML.
import fc from 'fast-check';
import { RESERVED_NAMES } from './hostile-values.js';

/** A key a prototype pollution would show up under, if one happened. */
export const POLLUTION_MARKER = 'fuzzPolluted';

/** Deep nesting up to this depth (V8's JSON.parse and the validators must refuse or survive it). */
const DEPTH_MAX = 3000;
/** Longest generated string: past every route's body limit. */
const HUGE_LENGTH_MAX = 300_000;

/** JSON text of an object whose keys may be reserved names (`__proto__` as an own key, which JSON.stringify cannot write). */
function objectText(entries: readonly (readonly [string, string])[]): string {
  return `{${entries.map(([key, text]) => `${JSON.stringify(key)}:${text}`).join(',')}}`;
}

/** Texts that are JSON (or nearly) and hostile: reserved keys, deep nesting, huge strings and arrays, number edge cases. */
function hostileJsonText(): fc.Arbitrary<string> {
  const value = fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v) ?? 'null');
  const reserved = fc.array(fc.tuple(fc.constantFrom<string>(...RESERVED_NAMES, POLLUTION_MARKER, 'label', 'auth'), value), { minLength: 1, maxLength: 4 });
  const depth = fc.integer({ min: 10, max: DEPTH_MAX });
  return fc.oneof(
    { weight: 3, arbitrary: value },
    { weight: 2, arbitrary: reserved.map(objectText) },
    { weight: 1, arbitrary: fc.constantFrom(`{"__proto__":{"${POLLUTION_MARKER}":true}}`, `{"constructor":{"prototype":{"${POLLUTION_MARKER}":true}}}`, `[{"__proto__":{"${POLLUTION_MARKER}":1}}]`) },
    { weight: 1, arbitrary: depth.map((n) => `${'['.repeat(n)}${']'.repeat(n)}`) },
    { weight: 1, arbitrary: depth.map((n) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`) },
    { weight: 1, arbitrary: depth.map((n) => `${'[{"__proto__":'.repeat(n)}0${'}]'.repeat(n)}`) },
    { weight: 1, arbitrary: fc.integer({ min: 1000, max: HUGE_LENGTH_MAX }).map((n) => JSON.stringify('a'.repeat(n))) },
    { weight: 1, arbitrary: fc.integer({ min: 1000, max: 110_000 }).map((n) => `[${'{},'.repeat(n)}{}]`) },
    { weight: 1, arbitrary: fc.constantFrom('1e309', '-1e309', '-0', '1'.repeat(400), `0.${'0'.repeat(400)}1`, '9007199254740993', '"\\ud800"', '"\\u0000"', 'NaN', 'Infinity', 'undefined', '') },
  );
}

/** Replaces the value at one path of a JSON value with `raw` text (its key may be reserved), returning JSON text. */
function withRawAt(value: unknown, pick: number, raw: string, key: string | undefined): string {
  const placeholder = '\u0000fuzz-placeholder\u0000';
  const paths: (string | number)[][] = [];
  const walk = (node: unknown, path: (string | number)[]): void => {
    paths.push(path);
    if (Array.isArray(node)) node.forEach((child, i) => walk(child, [...path, i]));
    else if (typeof node === 'object' && node !== null) for (const [k, child] of Object.entries(node)) walk(child, [...path, k]);
  };
  walk(value, []);
  const path = paths[pick % paths.length] as (string | number)[];
  const copy = structuredClone(value) as Record<string | number, unknown>;
  if (path.length === 0) return raw;
  let parent = copy as Record<string | number, unknown>;
  for (const step of path.slice(0, -1)) parent = parent[step] as Record<string | number, unknown>;
  const last = path[path.length - 1] as string | number;
  if (key !== undefined && !Array.isArray(parent)) {
    // A sibling under a reserved or duplicated key, written as text after the real keys.
    const text = JSON.stringify(copy);
    const target = JSON.stringify(parent);
    return text.replace(target, `${target.slice(0, -1)}${target === '{}' ? '' : ','}${JSON.stringify(key)}:${raw}}`);
  }
  parent[last] = placeholder;
  return JSON.stringify(copy).replace(JSON.stringify(placeholder), raw);
}

/**
 * A hostile JSON body for a route: a hostile text alone, or a valid body of the route with one
 * value replaced by (or one key added holding) a hostile value, so the hostility reaches past the
 * first shape check.
 */
export function hostileJsonBody(seeds: readonly unknown[]): fc.Arbitrary<string> {
  const alone = hostileJsonText();
  if (seeds.length === 0) return alone;
  const key = fc.option(fc.constantFrom<string>(...RESERVED_NAMES, 'label', 'metricName', 'type', 'details', 'unknownKey'), { nil: undefined });
  const inSeed = fc
    .tuple(fc.nat({ max: seeds.length - 1 }), fc.nat(), hostileJsonText(), key)
    .map(([index, pick, raw, added]) => withRawAt(seeds[index], pick, raw, added));
  return fc.oneof({ weight: 1, arbitrary: alone }, { weight: 2, arbitrary: inSeed });
}

/** One change to a body's bytes. Positions are taken modulo the body's length when applied. */
export type Mutation =
  | { readonly op: 'flip'; readonly at: number; readonly bit: number }
  | { readonly op: 'set'; readonly at: number; readonly byte: number }
  | { readonly op: 'insert'; readonly at: number; readonly bytes: readonly number[] }
  | { readonly op: 'delete'; readonly at: number; readonly length: number }
  | { readonly op: 'repeat'; readonly at: number; readonly length: number; readonly times: number };

/** Bytes that mean something to a JSON, msgpack or XML parser: quotes, brackets, msgpack length prefixes and ext types, invalid UTF-8. */
const MEANINGFUL_BYTES = [
  0x00, 0x0a, 0x22, 0x27, 0x2c, 0x3a, 0x3c, 0x3e, 0x26, 0x5b, 0x5d, 0x5c, 0x7b, 0x7d, 0x7f, 0x80, 0xbf, 0xc0, 0xc1, 0xc4, 0xc7, 0xd4, 0xd6, 0xd9, 0xda,
  0xdb, 0xdc, 0xdd, 0xde, 0xdf, 0xed, 0xf5, 0xfe, 0xff,
];

const byteArb = fc.oneof(fc.constantFrom(...MEANINGFUL_BYTES), fc.integer({ min: 0, max: 255 }));

export const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ op: fc.constant('flip' as const), at: fc.nat(), bit: fc.integer({ min: 0, max: 7 }) }),
  fc.record({ op: fc.constant('set' as const), at: fc.nat(), byte: byteArb }),
  fc.record({
    op: fc.constant('insert' as const),
    at: fc.nat(),
    bytes: fc.oneof(fc.array(byteArb, { minLength: 1, maxLength: 8 }), fc.constantFrom([0xdd, 0xff, 0xff, 0xff, 0xff], [0xdf, 0x7f, 0xff, 0xff, 0xff], [0xdb, 0xff, 0xff, 0xff, 0xf0], [0xc9, 0xff, 0xff, 0xff, 0xff, 0x01])),
  }),
  fc.record({ op: fc.constant('delete' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 16 }) }),
  fc.record({ op: fc.constant('repeat' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 16 }), times: fc.integer({ min: 2, max: 2000 }) }),
);

/** Applies mutations in order to a copy of `bytes`. */
export function mutate(bytes: Buffer, mutations: readonly Mutation[]): Buffer {
  let out = Buffer.from(bytes);
  for (const m of mutations) {
    const at = m.at % (out.length + 1);
    if (m.op === 'flip' && at < out.length) out[at] = (out[at] as number) ^ (1 << m.bit);
    else if (m.op === 'set' && at < out.length) out[at] = m.byte;
    else if (m.op === 'insert') out = Buffer.concat([out.subarray(0, at), Buffer.from(m.bytes), out.subarray(at)]);
    else if (m.op === 'delete') out = Buffer.concat([out.subarray(0, at), out.subarray(at + m.length)]);
    else if (m.op === 'repeat') {
      const piece = out.subarray(at, at + m.length);
      out = Buffer.concat([out.subarray(0, at), ...Array.from({ length: m.times }, () => piece), out.subarray(at + m.length)]);
    }
  }
  return out;
}

const ATOM_NS = 'http://www.w3.org/2005/Atom';
const XML_NAMES = ['entry', 'title', 'content', 'category', 'link', 'id', 'a', 'atom:entry', 'atom:title', '__proto__:entry', '#text', '@_term', '?xml'] as const;

/** XML text content or attribute value: hostile text escaped, or raw markup characters left in. */
const xmlText = fc.oneof(
  fc.string({ maxLength: 24 }).map((t) => t.replace(/&/g, '&amp;').replace(/</g, '&lt;')),
  fc.constantFrom('&lt;b&gt;', '&amp;', '&#0;', '&#x110000;', '&#xD800;', '&undefined;', '&lt;', ']]>', '<![CDATA[<x>]]>', '<!-- c -->', '<?pi x?>', 'eyJhIjoxfQ==', '%', '\u0000', '&'),
  fc.constantFrom<string>(...RESERVED_NAMES),
);

/** One element: a name (Atom, reserved or junk), reserved attributes, and text. */
const elementArb = fc
  .record({
    name: fc.constantFrom<string>(...XML_NAMES, ...RESERVED_NAMES),
    attrs: fc.array(fc.tuple(fc.constantFrom<string>(...RESERVED_NAMES, 'type', 'term', 'xmlns', 'xml:lang', '_'), xmlText), { maxLength: 3 }),
    text: xmlText,
  })
  .map(({ name, attrs, text }) => `<${name}${attrs.map(([k, v]) => ` ${k}="${v.replace(/"/g, '&quot;')}"`).join('')}>${text}</${name}>`);

/** Hostile XML documents: entity expansion, external entities, deep nesting, reserved element and attribute names, odd prologs. */
export function hostileXml(): fc.Arbitrary<string> {
  const depth = fc.integer({ min: 10, max: DEPTH_MAX });
  const laughs = '<!DOCTYPE e [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;"><!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">]>';
  return fc.oneof(
    fc.constantFrom(
      `${laughs}<entry xmlns="${ATOM_NS}"><title>&d;</title></entry>`,
      `<!DOCTYPE e [<!ENTITY x SYSTEM "file:///etc/passwd">]><entry xmlns="${ATOM_NS}"><title>&x;</title></entry>`,
      `<!DOCTYPE e [<!ENTITY % p SYSTEM "http://127.0.0.1:1/x">%p;]><entry xmlns="${ATOM_NS}"><title>x</title></entry>`,
      `<__proto__ xmlns="${ATOM_NS}"><title>x</title></__proto__>`,
      `<entry xmlns="${ATOM_NS}"><title>a</title><title>b</title></entry>`,
      `<entry xmlns="${ATOM_NS}" __proto__="x"><title __proto__="y">t</title></entry>`,
      `<entry xmlns="${ATOM_NS}"><title>t</title><category __proto__="x" term="a"/><category term="__proto__"/></entry>`,
      `<entry xmlns="${ATOM_NS}"><title>t</title><content type="__proto__">x</content></entry>`,
      `<entry xmlns="${ATOM_NS}"><title><![CDATA[<b>x</b>]]></title></entry>`,
      `\ufeff<?xml version="1.0" encoding="UTF-16"?><entry xmlns="${ATOM_NS}"><title>t</title></entry>`,
      `<?xml version="1.1"?><entry xmlns="${ATOM_NS}"><title>t</title></entry>`,
      `<entry xmlns="${ATOM_NS}"><title>t</title></entry><entry><title>second root</title></entry>`,
    ),
    depth.map((n) => `<entry xmlns="${ATOM_NS}"><title>t</title>${'<a>'.repeat(n)}${'</a>'.repeat(n)}</entry>`),
    depth.map((n) => `${'<entry>'.repeat(n)}<title>t</title>${'</entry>'.repeat(n)}`),
    depth.map((n) => `<entry xmlns="${ATOM_NS}"><title>${'<__proto__>'.repeat(n)}x${'</__proto__>'.repeat(n)}</title></entry>`),
    fc
      .tuple(fc.constantFrom<string>('entry', 'atom:entry', ...RESERVED_NAMES), fc.array(elementArb, { maxLength: 6 }), fc.boolean())
      .map(([root, children, ns]) => `<${root}${ns ? ` xmlns="${ATOM_NS}" xmlns:atom="${ATOM_NS}"` : ''}>${children.join('')}</${root}>`),
  );
}
