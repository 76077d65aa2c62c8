// Owns in-process requests for the HTTP tests (fastify's inject, no network) and the checks of each API's error body.
import { expect } from 'vitest';
import { KEYS, type Harness } from './harness.js';

/** The transaction id every response carries in X-Response-Id (txn-id.ts). */
export const TXN_ID_PATTERN = /^\.r-[\w-]+\.c-\d+\.ts-\d+\.v-strata$/;

/** Options of inject(). */
export interface InjectOptions {
  readonly token?: string;
  /** A JSON value, sent as application/json (unless `type` says otherwise). */
  readonly json?: unknown;
  /** Raw bytes or text, sent with `type` as Content-Type (none when `type` is absent). */
  readonly body?: string | Buffer;
  readonly type?: string;
  readonly accept?: string;
  readonly headers?: Record<string, string>;
}

/** A response with its body as text and, when it is JSON, parsed. */
export interface Injected {
  readonly status: number;
  readonly headers: Record<string, string | string[] | number | undefined>;
  readonly text: string;
  readonly json: any;
  /** The X-Response-Id header. */
  readonly txnId: string;
}

/** The part of the harness inject needs: its fastify app. */
export type InjectTarget = Pick<Harness, 'app'>;

type Method = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';

/**
 * One request through `app.inject`. Every response must carry a transaction id in X-Response-Id
 * (checked here, so every test checks it), and a JSON error body that quotes one must quote the same.
 */
export async function inject(target: InjectTarget, method: Method, url: string, options: InjectOptions = {}): Promise<Injected> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token !== undefined) headers['x-auth-token'] = options.token;
  if (options.accept !== undefined) headers['accept'] = options.accept;
  let payload: string | Buffer | undefined = options.body;
  if (options.json !== undefined) {
    payload = JSON.stringify(options.json);
    headers['content-type'] = 'application/json';
  }
  if (options.type !== undefined) headers['content-type'] = options.type;
  const response = await target.app.inject({ method, url, headers, ...(payload !== undefined ? { payload } : {}) });
  const text = response.body;
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  const header = response.headers['x-response-id'];
  const txnId = typeof header === 'string' ? header : `(no X-Response-Id on ${method} ${url.slice(0, 100)}: ${response.statusCode} ${text.slice(0, 200)})`;
  expect(txnId).toMatch(TXN_ID_PATTERN);
  const quoted = (json as { txnId?: unknown } | undefined)?.txnId;
  if (quoted !== undefined) expect(quoted).toBe(txnId);
  return { status: response.statusCode, headers: response.headers, text, json, txnId };
}

/** A fresh token of a harness user, issued through POST /v2.0/tokens in process. */
export async function tokenOf(target: InjectTarget, user: keyof typeof KEYS): Promise<string> {
  const res = await inject(target, 'POST', '/v2.0/tokens', { json: { auth: { 'RAX-KSKEY:apiKeyCredentials': { username: user, apiKey: KEYS[user] } } } });
  expect(res.status).toBe(200);
  return res.json.access.token.id as string;
}

/** The metrics API's `type` per status (metrics-fault.ts; the reference table plus its pattern). */
const METRICS_TYPES: Readonly<Record<number, string>> = {
  400: 'badRequest',
  401: 'unauthorizedError',
  403: 'forbiddenError',
  404: 'notFoundError',
  405: 'methodNotAllowedError',
  413: 'requestTooLargeError',
  415: 'unsupportedMediaTypeError',
  500: 'internalError',
  503: 'systemFailureError',
};

function describeResponse(res: Injected): string {
  return `${res.status} ${res.text.slice(0, 300)}`;
}

/**
 * Asserts the metrics (and monitoring, operations) error body: exactly `{type, code, message,
 * details, txnId}`, the status and its type name, `details.code` the Strata code, and the other
 * `details` fields when given. Returns the details for further checks.
 */
export function expectMetricsError(res: Injected, status: number, code: string, details: Record<string, unknown> = {}): Record<string, unknown> {
  expect(res.status, describeResponse(res)).toBe(status);
  expect(String(res.headers['content-type'])).toMatch(/^application\/json/);
  expect(Object.keys(res.json ?? {}).sort(), describeResponse(res)).toEqual(['code', 'details', 'message', 'txnId', 'type']);
  expect(res.json.type).toBe(METRICS_TYPES[status]);
  expect(res.json.code).toBe(status);
  expect(typeof res.json.message).toBe('string');
  expect(res.json.message.length).toBeGreaterThan(0);
  expect(res.json.details, describeResponse(res)).toMatchObject({ code, ...details });
  expect(res.json.txnId).toBe(res.txnId);
  if (status === 405) expect(res.headers['allow']).toBe(res.json.details.allow);
  return res.json.details as Record<string, unknown>;
}

/** One entry of the ingest error body's `errors` list (the wire room's type). */
export type { IngestErrorEntry } from '../../src/wire/ingest-mapping.js';
import type { IngestErrorEntry } from '../../src/wire/ingest-mapping.js';

/**
 * Asserts the ingest error body: the metrics shape plus `errors`, each entry with its fields; a
 * whole-request error lists one entry with index null, no metric name and no source, whose code
 * and message are the body's. Returns the entries.
 */
export function expectIngestError(res: Injected, status: number, code: string, details: Record<string, unknown> = {}): IngestErrorEntry[] {
  expect(res.status, describeResponse(res)).toBe(status);
  expect(Object.keys(res.json ?? {}).sort(), describeResponse(res)).toEqual(['code', 'details', 'errors', 'message', 'txnId', 'type']);
  const { errors, ...rest } = res.json as { errors: IngestErrorEntry[] };
  expectMetricsError({ ...res, json: rest }, status, code, details);
  expect(Array.isArray(errors)).toBe(true);
  expect(errors.length).toBeGreaterThan(0);
  for (const entry of errors) {
    expect(Object.keys(entry).sort()).toEqual(expect.arrayContaining(['code', 'index', 'message', 'metricName', 'source', 'tenantId']));
    expect(typeof entry.code).toBe('string');
    expect(typeof entry.message).toBe('string');
  }
  if (code !== 'INGEST_POINTS_REJECTED') {
    expect(errors).toEqual([{ index: null, tenantId: expect.any(String), metricName: '', source: null, message: res.json.message, code }]);
  }
  return errors;
}

/** Asserts the identity fault body: exactly `{"<name>": {code, message}}` with the status, and the message when given. */
export function expectIdentityFault(res: Injected, status: number, name: string, message?: string): void {
  expect(res.status, describeResponse(res)).toBe(status);
  expect(String(res.headers['content-type'])).toMatch(/^application\/json/);
  expect(Object.keys(res.json ?? {}), describeResponse(res)).toEqual([name]);
  const fault = res.json[name] as Record<string, unknown>;
  expect(Object.keys(fault).sort()).toEqual(['code', 'message']);
  expect(fault['code']).toBe(status);
  expect(typeof fault['message']).toBe('string');
  if (message !== undefined) expect(fault['message']).toBe(message);
}
