// Owns what every fuzzed response must satisfy: no 5xx, a transaction id, the error body of its API, well-formed success bodies, and no polluted prototypes.
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import type { LightMyRequestResponse } from 'fastify';
import { TXN_ID_PATTERN } from '../http/inject.js';
import { apiOfPath, type ApiName } from './route-catalog.js';

/** One request as the fuzzer sends it. */
export interface FuzzRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string | string[]>>;
  readonly body?: Buffer;
}

/** The monitoring type names of the metrics shape (metrics-fault.ts and the reference's table). */
const METRICS_TYPES = new Set([
  'badRequest', 'unauthorizedError', 'forbiddenError', 'notFoundError', 'methodNotAllowedError', 'conflictError', 'requestTooLargeError',
  'unsupportedMediaTypeError', 'systemFailureError', 'invalidLimit', 'childrenExistError', 'alarmParseError', 'parentNotFoundError', 'limitReached',
  'rateLimitReached', 'agentNotConnected',
]);
/** Fault names of the wrapped-fault APIs (fault-names.ts plus each API's own). */
const IDENTITY_FAULTS = new Set(['badRequest', 'unauthorized', 'forbidden', 'itemNotFound', 'methodNotAllowed', 'overLimit', 'badMediaType', 'serviceUnavailable', 'conflict']);
const DNS_FAULTS = new Set([...IDENTITY_FAULTS].filter((name) => name !== 'conflict').concat('itemAlreadyExists'));
const FEEDS_ERROR_NS = 'http://abdera.apache.org';
const DNS_NS = 'http://docs.rackspacecloud.com/dns/api/v1.0';
const STRATA_CODE = /^[A-Z][A-Z0-9_]+$/;

const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@_', parseTagValue: false, parseAttributeValue: false });

/** A compact, replayable description of a request and its answer, for failure messages. */
export function describeExchange(request: FuzzRequest, res: LightMyRequestResponse | undefined): string {
  const body = request.body;
  const bodyText = body === undefined ? '(none)' : body.length <= 200 ? `hex ${body.toString('hex')} = ${JSON.stringify(body.toString('latin1'))}` : `${body.length} bytes, starting hex ${body.subarray(0, 120).toString('hex')}`;
  const answer = res === undefined ? '(no answer)' : `${res.statusCode} ${JSON.stringify(res.headers)} ${res.body.slice(0, 400)}`;
  return `\n  request: ${request.method} ${request.url.slice(0, 400)}${request.url.length > 400 ? `... (${request.url.length} chars)` : ''}\n  headers: ${JSON.stringify(request.headers).slice(0, 600)}\n  body: ${bodyText}\n  answer: ${answer}`;
}

class InvariantError extends Error {}

function check(condition: boolean, what: string, request: FuzzRequest, res: LightMyRequestResponse): asserts condition {
  if (!condition) throw new InvariantError(`${what}${describeExchange(request, res)}`);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function sortedKeys(value: unknown): string {
  return isPlainObject(value) ? Object.keys(value).sort().join(',') : `(${typeof value})`;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The metrics shape (metrics, monitoring, operations, unmatched URLs), with Blueflood's `errors` list on ingest. */
function checkMetricsShape(api: ApiName, request: FuzzRequest, res: LightMyRequestResponse): void {
  const body = parseJson(res.body) as Record<string, any> | undefined;
  const ingest = api === 'ingest';
  const keys = ingest ? 'code,details,errors,message,txnId,type' : 'code,details,message,txnId,type';
  check(sortedKeys(body) === keys, `${api} error body must have exactly the keys ${keys}`, request, res);
  check(METRICS_TYPES.has(body!['type']), `${api} error type must be a monitoring type name`, request, res);
  check(body!['code'] === res.statusCode, `${api} error code must be the status`, request, res);
  check(typeof body!['message'] === 'string' && body!['message'].length > 0, `${api} error message must be text`, request, res);
  check(isPlainObject(body!['details']) && STRATA_CODE.test(String(body!['details']['code'])), `${api} error details.code must be a Strata code`, request, res);
  check(body!['txnId'] === res.headers['x-response-id'], `${api} error txnId must be the X-Response-Id`, request, res);
  if (res.statusCode === 405) check(res.headers['allow'] === body!['details']['allow'], '405 Allow must equal details.allow', request, res);
  if (ingest) {
    const errors = body!['errors'];
    check(Array.isArray(errors) && errors.length > 0, 'ingest errors must be a non-empty list', request, res);
    for (const entry of errors as unknown[]) {
      const fields = isPlainObject(entry) ? entry : {};
      const complete = ['code', 'index', 'message', 'metricName', 'source', 'tenantId'].every((key) => key in fields);
      check(complete && typeof fields['code'] === 'string' && typeof fields['message'] === 'string', 'every ingest error entry has code, index, message, metricName, source, tenantId', request, res);
    }
  }
}

function checkIdentityShape(request: FuzzRequest, res: LightMyRequestResponse): void {
  const body = parseJson(res.body);
  const names = isPlainObject(body) ? Object.keys(body) : [];
  check(names.length === 1 && IDENTITY_FAULTS.has(names[0] as string), 'identity error must be one fault wrapped under its name', request, res);
  const fault = (body as Record<string, unknown>)[names[0] as string] as Record<string, unknown>;
  check(sortedKeys(fault) === 'code,message', 'identity fault must have exactly code and message', request, res);
  check(fault['code'] === res.statusCode && typeof fault['message'] === 'string', 'identity fault code must be the status, message text', request, res);
}

/** The root element of an XML error document and its name. */
function xmlRoot(request: FuzzRequest, res: LightMyRequestResponse): [string, Record<string, unknown>] {
  check(XMLValidator.validate(res.body) === true, 'XML error body must be well-formed', request, res);
  const doc = xml.parse(res.body) as Record<string, unknown>;
  const names = Object.keys(doc).filter((name) => name !== '?xml');
  check(names.length === 1 && isPlainObject(doc[names[0] as string]), 'XML error body must have one root element', request, res);
  return [names[0] as string, doc[names[0] as string] as Record<string, unknown>];
}

function checkFeedsShape(json: boolean, request: FuzzRequest, res: LightMyRequestResponse): void {
  if (res.statusCode === 401) check(String(res.headers['www-authenticate']).startsWith('Basic '), 'feeds 401 must carry the Basic challenge', request, res);
  if (json) {
    const body = parseJson(res.body) as Record<string, any> | undefined;
    check(sortedKeys(body) === 'error', 'feeds JSON error must be {"error": {...}}', request, res);
    const error = body!['error'];
    check(isPlainObject(error) && error['code'] === String(res.statusCode), 'feeds error.code must be the status as text', request, res);
    check(typeof error['message'] === 'string' && isPlainObject(error['details']) && STRATA_CODE.test(String(error['details']['code'])), 'feeds error has a message and details.code', request, res);
    return;
  }
  const [name, root] = xmlRoot(request, res);
  check(name === 'error' && root['@_xmlns'] === FEEDS_ERROR_NS, 'feeds XML error must be <error xmlns="http://abdera.apache.org">', request, res);
  check(String(root['code']) === String(res.statusCode) && typeof root['message'] === 'string' && STRATA_CODE.test(String(root['details'])), 'feeds XML error has code, message, details', request, res);
}

function checkDnsShape(json: boolean, request: FuzzRequest, res: LightMyRequestResponse): void {
  if (json) {
    const body = parseJson(res.body) as Record<string, unknown> | undefined;
    check(sortedKeys(body) === 'code,details,message', 'DNS JSON error must be exactly {message, code, details}', request, res);
    check(body!['code'] === res.statusCode && typeof body!['message'] === 'string' && STRATA_CODE.test(String(body!['details'])), 'DNS error: code is the status, details the Strata code', request, res);
    return;
  }
  const [name, root] = xmlRoot(request, res);
  check(DNS_FAULTS.has(name) && root['@_xmlns'] === DNS_NS, 'DNS XML error must be a named fault element in the DNS namespace', request, res);
  check(root['@_code'] === String(res.statusCode) && typeof root['message'] === 'string' && STRATA_CODE.test(String(root['details'])), 'DNS XML fault has code, message, details', request, res);
}

function headerOf(request: FuzzRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** The form an error of a feeds or DNS URL must take when the request's Accept leaves no choice. */
function expectedForm(api: ApiName, request: FuzzRequest): 'json' | 'xml' | undefined {
  const accept = headerOf(request, 'accept');
  if (accept === undefined || accept.trim() === '') return api === 'dns' ? 'json' : 'xml';
  if (accept === 'application/json') return 'json';
  if (accept === 'application/xml') return 'xml';
  return undefined;
}

/** Prometheus' shape: plain text, `CODE: message`, or the partial-write report whose first line counts the points. */
function checkPrometheusShape(request: FuzzRequest, res: LightMyRequestResponse): void {
  check(/^text\/plain/.test(String(res.headers['content-type'] ?? '')), 'prometheus error must be plain text', request, res);
  const first = res.body.split('\n')[0] ?? '';
  check(/^[A-Z][A-Z0-9_]+: \S/.test(first) || /^accepted \d+, rejected [1-9]\d*, skipped \d+ points$/.test(first), 'prometheus error must start `CODE: message` or be a write report', request, res);
}

/** OTLP's shape: a google.rpc.Status, JSON (`code` a gRPC code, `message` starting with a Strata code) or protobuf (field 1 first). */
function checkOtlpShape(request: FuzzRequest, res: LightMyRequestResponse): void {
  const type = String(res.headers['content-type'] ?? '');
  if (/^application\/x-protobuf/.test(type)) {
    check(res.rawPayload.length > 0 && res.rawPayload[0] === 0x08, 'otlp protobuf error must be a Status starting with its code field', request, res);
    return;
  }
  check(/^application\/json/.test(type), 'otlp error must be JSON or protobuf', request, res);
  const body = parseJson(res.body) as Record<string, unknown> | undefined;
  check(sortedKeys(body) === 'code,message', 'otlp error body must have exactly the keys code,message', request, res);
  check(Number.isInteger(body!['code']) && (body!['code'] as number) > 0 && (body!['code'] as number) <= 16, 'otlp error code must be a gRPC status code', request, res);
  check(/^[A-Z][A-Z0-9_]+: \S/.test(String(body!['message'])), 'otlp error message must start with a Strata code', request, res);
}

/** The path the server sees for a URL, parsed as light-my-request parses it (`//x` is a path there, not a host). */
function pathSeen(url: string): string {
  return new URL(url.startsWith('//') ? `http://localhost${url}` : url, 'http://localhost').pathname;
}

/** Asserts the error body of a 4xx (or 503) in the shape of the API the URL is under. */
function checkErrorBody(request: FuzzRequest, res: LightMyRequestResponse): void {
  const api = apiOfPath(pathSeen(request.url));
  const type = String(res.headers['content-type'] ?? '');
  const json = /^application\/json/.test(type);
  if (api === 'feeds' || api === 'dns') {
    check(json || /^application\/xml/.test(type), `${api} error must be JSON or XML`, request, res);
    const form = expectedForm(api, request);
    if (form !== undefined) check((form === 'json') === json, `${api} error must be ${form} for this Accept`, request, res);
    if (api === 'feeds') checkFeedsShape(json, request, res);
    else checkDnsShape(json, request, res);
    return;
  }
  if (api === 'prometheus') return checkPrometheusShape(request, res);
  if (api === 'otlp') return checkOtlpShape(request, res);
  check(json, `${api} error must be JSON`, request, res);
  if (api === 'identity') checkIdentityShape(request, res);
  else checkMetricsShape(api, request, res);
}

/** Asserts the invariants every answer must keep, whatever was sent. */
export function checkResponse(request: FuzzRequest, res: LightMyRequestResponse): void {
  const status = res.statusCode;
  if (status === 503) check(res.headers['retry-after'] !== undefined, '503 must carry Retry-After', request, res);
  else check(status < 500, 'no 5xx answer', request, res);
  check(TXN_ID_PATTERN.test(String(res.headers['x-response-id'])), 'every answer carries a transaction id in X-Response-Id', request, res);
  if (status === 405) check(typeof res.headers['allow'] === 'string', '405 must carry Allow', request, res);
  if (request.method === 'HEAD') {
    check(res.body === '', 'HEAD answers have no body', request, res);
    return;
  }
  if (status >= 400) {
    checkErrorBody(request, res);
    return;
  }
  const type = String(res.headers['content-type'] ?? '');
  if (res.body !== '' && /json/.test(type)) check(parseJson(res.body) !== undefined, 'a JSON answer must parse', request, res);
  if (res.body !== '' && /xml/.test(type)) check(XMLValidator.validate(res.body) === true, 'an XML answer must be well-formed', request, res);
}

/** The built-in prototypes a hostile key could reach, and their properties as the suite started. */
const PROTOTYPES: readonly [string, object][] = [
  ['Object.prototype', Object.prototype],
  ['Array.prototype', Array.prototype],
  ['Function.prototype', Function.prototype],
  ['String.prototype', String.prototype],
];
const PRISTINE = PROTOTYPES.map(([name, proto]) => [name, proto, new Map(Reflect.ownKeys(proto).map((key) => [key, Object.getOwnPropertyDescriptor(proto, key)?.value]))] as const);

/** Asserts that no prototype gained, lost or changed a property (a pollution through a parsed body, query or header). */
export function checkPrototypes(request: FuzzRequest, res: LightMyRequestResponse | undefined): void {
  for (const [name, proto, before] of PRISTINE) {
    const now = Reflect.ownKeys(proto);
    const changed = now.length !== before.size || now.some((key) => !before.has(key) || Object.getOwnPropertyDescriptor(proto, key)?.value !== before.get(key));
    if (changed) throw new InvariantError(`${name} was polluted: ${now.filter((key) => !before.has(key)).map(String).join(', ')}${describeExchange(request, res)}`);
  }
}
