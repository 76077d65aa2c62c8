// Owns turning an operation into arbitraries of whole requests, hostile in one part (path, query, headers or body) and plausible elsewhere, so each property reaches deep.
import fc from 'fast-check';
import { CALLERS, FUZZ_NOW_MS, type Caller, type FuzzWorld } from './fuzz-world.js';
import { contentTypeArb, extraHeadersArb, headerText, queryArb, renderQuery, renderSegment, segmentArb, type QueryPair, type Segment } from './hostile-values.js';
import type { Operation } from './route-catalog.js';
import type { FuzzRequest } from './response-invariants.js';
import type { SeedBody } from './seed-bodies.js';

const DAY_MS = 86_400_000;
/** A plausible (often valid) value of a query parameter, so hostility elsewhere reaches the handler. */
export function plausibleValue(key: string, schema: Readonly<Record<string, unknown>> | undefined): fc.Arbitrary<string> {
  switch (key) {
    case 'from':
      return fc.oneof(fc.constant(String(FUZZ_NOW_MS - DAY_MS)), fc.integer({ min: FUZZ_NOW_MS - 400 * DAY_MS, max: FUZZ_NOW_MS + DAY_MS }).map(String));
    case 'to':
      return fc.oneof(fc.constant(String(FUZZ_NOW_MS + 60_000)), fc.integer({ min: FUZZ_NOW_MS - 400 * DAY_MS, max: FUZZ_NOW_MS + 400 * DAY_MS }).map(String));
    case 'points':
      return fc.integer({ min: -5, max: 5000 }).map(String);
    case 'resolution':
      return fc.constantFrom('FULL', 'MIN5', 'MIN20', 'MIN60', 'MIN240', 'MIN1440', 'min5', 'HOUR');
    case 'select':
      return fc.subarray(['average', 'min', 'max', 'variance', 'numPoints', 'sum']).map((s) => s.join(','));
    case 'limit':
      return fc.integer({ min: -1, max: 1001 }).map(String);
    case 'offset':
      return fc.constantFrom('0', '1', '2', '10', '100');
    case 'direction':
      return fc.constantFrom('forward', 'backward', '');
    case 'query':
      return fc.string({ unit: fc.constantFrom('a', 'b', '.', '*', '?', '[', ']', '{', '}', '\\', 'f', 'u', 'z'), maxLength: 24 });
    case 'name':
      return fc.constantFrom('example.com', 'sub1.example.com', 'nope.example');
    case 'showRecords':
    case 'showSubdomains':
      return fc.constantFrom('true', 'false', 'FALSE', '0');
    case 'belongsTo':
      return fc.constantFrom('t1', 't2');
    default:
      return schema?.['type'] === 'integer' ? fc.integer({ min: -10, max: 2000 }).map(String) : fc.string({ maxLength: 12 });
  }
}

/** Documented parameters with plausible values, each present or not. */
function plausibleQuery(op: Operation): fc.Arbitrary<QueryPair[]> {
  const entries = Object.entries(op.queryParams);
  const required = new Set(['from', 'to', 'query']);
  return fc.tuple(...entries.map(([key, schema]) => fc.option(plausibleValue(key, schema), { freq: required.has(key) ? 8 : 2 }))).map((values) =>
    values.flatMap((value, i) => (value === null ? [] : [{ key: (entries[i] as [string, unknown])[0], value, encoded: true }])),
  );
}

/** Everything a request is made of before the world's live values (tokens, ids) are filled in. */
export interface RequestPlan {
  readonly method: string;
  readonly segments: readonly Segment[];
  readonly query: readonly QueryPair[];
  readonly caller: Caller;
  readonly junk: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly contentType: string | undefined;
  readonly body: Buffer | undefined;
}

/**
 * The URL as in-process requests can carry it: light-my-request parses URLs as WHATWG URLs, so a
 * backslash right after the first slash would make the rest an authority (a host) or no URL at
 * all. Such backslashes are sent percent-encoded; a real client could send them raw.
 */
function injectable(url: string): string {
  const base = 'http://localhost';
  // light-my-request puts its base before a URL starting with `//`, so that is a path there.
  const parsed = url.startsWith('//') ? `${base}${url}` : url;
  if (URL.canParse(parsed, base) && new URL(parsed, base).host === 'localhost') return url;
  return url.replace(/\\/g, '%5C');
}

/** The request a plan stands for, with the world's current ids and tokens. */
export function realize(world: FuzzWorld, op: Operation, plan: RequestPlan): FuzzRequest {
  let i = 0;
  const path = op.pattern.replace(/:([A-Za-z]+)/g, (_match, name: string) => renderSegment(plan.segments[i++] ?? { kind: 'known' }, world.known(op.pattern, name, plan.caller)));
  const query = renderQuery(plan.query);
  const headers: Record<string, string> = { ...plan.headers, ...world.credentials(plan.caller, plan.junk) };
  if (plan.contentType !== undefined) headers['content-type'] = plan.contentType;
  return { method: plan.method, url: injectable(query === '' ? path : `${path}?${query}`), headers, ...(plan.body !== undefined ? { body: plan.body } : {}) };
}

/** Mostly alice (an admin of t1, so requests pass auth), sometimes every other kind of caller; `hostile` draws the others more often. */
function callerArb(hostile: boolean): fc.Arbitrary<Caller> {
  return fc.oneof(
    { weight: hostile ? 3 : 7, arbitrary: fc.constant<Caller>('alice') },
    { weight: 1, arbitrary: fc.constantFrom<Caller>('__proto__', 'constructor') },
    { weight: hostile ? 5 : 2, arbitrary: fc.constantFrom(...CALLERS) },
  );
}

/** Which parts of a request are hostile; the others are plausible. */
export interface Hostility {
  readonly path?: boolean;
  readonly query?: boolean;
  readonly headers?: boolean;
  /** Hostile bodies; when absent a valid seed body (if the route has one) is sent. */
  readonly body?: fc.Arbitrary<{ type: string | undefined; bytes: Buffer }>;
}

/** Arbitrary requests to `op`, hostile where `hostility` says. */
export function planArb(op: Operation, seeds: readonly SeedBody[], hostility: Hostility): fc.Arbitrary<RequestPlan> {
  const segments = fc.tuple(...op.pathParams.map((name) => (hostility.path === true ? segmentArb(name === 'tenant' ? 5 : 1) : fc.constant<Segment>({ kind: 'known' }))));
  const docKeys = Object.keys(op.queryParams);
  const query = hostility.query === true ? queryArb(docKeys, (key) => plausibleValue(key, op.queryParams[key])) : plausibleQuery(op);
  type Body = { type: string | undefined; bytes: Buffer } | undefined;
  const seedBody: fc.Arbitrary<Body> = seeds.length > 0 ? fc.constantFrom(...seeds.map((seed) => ({ type: seed.type as string | undefined, bytes: seed.bytes }))) : fc.constant(undefined);
  const body: fc.Arbitrary<Body> = hostility.body ?? (hostility.headers === true ? fc.option(seedBody, { nil: undefined }) : seedBody);
  // null: the body's own type; undefined: no Content-Type at all.
  const contentType: fc.Arbitrary<string | undefined | null> =
    hostility.headers === true ? fc.oneof({ weight: 1, arbitrary: fc.constant(null) }, { weight: 2, arbitrary: contentTypeArb(op.bodyTypes) }) : fc.constant(null);
  return fc
    .record({
      segments,
      query,
      caller: callerArb(hostility.headers === true),
      junk: headerText(80),
      headers: hostility.headers === true ? extraHeadersArb() : fc.constant({}),
      contentType,
      body,
    })
    .map(({ segments: s, query: q, caller, junk, headers, contentType: type, body: b }) => ({
      method: op.method,
      segments: s,
      query: q,
      caller,
      junk,
      headers,
      contentType: type === null ? b?.type : type,
      body: b?.bytes,
    }));
}

/**
 * Requests every run of a property starts with, whatever the seed: no body and no Content-Type,
 * an empty body of the route's own type, no credentials, and each valid body as it is.
 */
export function edgePlans(op: Operation, seeds: readonly SeedBody[]): RequestPlan[] {
  const plain: RequestPlan = { method: op.method, segments: op.pathParams.map(() => ({ kind: 'known' })), query: [], caller: 'alice', junk: '', headers: {}, contentType: undefined, body: undefined };
  return [
    plain,
    { ...plain, contentType: op.bodyTypes[0] ?? seeds[0]?.type ?? 'application/json', body: Buffer.alloc(0) },
    { ...plain, caller: 'none' },
    ...seeds.map((seed) => ({ ...plain, contentType: seed.type, body: seed.bytes })),
  ];
}
