// Owns reading an OTLP ExportMetricsServiceRequest in OTLP/JSON (lowerCamelCase keys, 64-bit integers as strings or numbers, enums as integers) into the OTLP mapper.
import { StrataError } from '../core/errors.js';
import {
  jsonBool,
  jsonBytes,
  jsonDouble,
  jsonElement,
  jsonEnum,
  jsonInt64,
  jsonInt64Text,
  jsonList,
  jsonMalformed,
  jsonNanosAsMillis,
  jsonObject,
  jsonString,
  jsonUint32,
  jsonUint64,
  type JsonObject,
} from './otlp-json-values.js';
import { KIND_EXPONENTIAL_HISTOGRAM, KIND_GAUGE, KIND_HISTOGRAM, KIND_SUM, KIND_SUMMARY, type OtlpMapper } from './otlp-mapping.js';
import type { OtlpPoint } from './otlp-point.js';
import { bytesText, doubleJson, doubleText, EMPTY_JSON, memberJson, stringJson } from './otlp-text.js';
import { PROTOBUF_DEPTH_MAX } from './protocol-limits.js';

/** The metric kinds by their OTLP/JSON key. */
const KIND_KEYS: readonly (readonly [string, number])[] = [
  ['gauge', KIND_GAUGE],
  ['sum', KIND_SUM],
  ['histogram', KIND_HISTOGRAM],
  ['exponentialHistogram', KIND_EXPONENTIAL_HISTOGRAM],
  ['summary', KIND_SUMMARY],
];

/** Whether a JSON field is set: proto3 JSON reads null as the field's default. */
function isSet(value: unknown): boolean {
  return value !== undefined && value !== null;
}

/** The oneof member `field` when no other member was set before it (`previous` is 0); two set is malformed. */
function onlyMember(previous: number, field: number): number {
  if (previous !== 0) throw jsonMalformed('value', 'sets more than one member of the AnyValue oneof');
  return field;
}

/**
 * The member of AnyValue's oneof that `any` sets, by its protobuf field number (string 1, bool 2,
 * int 3, double 4, array 5, kvlist 6, bytes 7), or 0 for none. Named reads, not a loop over key
 * names: the AnyValues of a body come in a few shapes, so each read is a cached property load.
 */
function anyMember(any: JsonObject): number {
  let member = 0;
  if (isSet(any.stringValue)) member = onlyMember(member, 1);
  if (isSet(any.boolValue)) member = onlyMember(member, 2);
  if (isSet(any.intValue)) member = onlyMember(member, 3);
  if (isSet(any.doubleValue)) member = onlyMember(member, 4);
  if (isSet(any.arrayValue)) member = onlyMember(member, 5);
  if (isSet(any.kvlistValue)) member = onlyMember(member, 6);
  if (isSet(any.bytesValue)) member = onlyMember(member, 7);
  return member;
}

/** A double field that is not in a oneof: 0 when absent or null. */
function optionalDouble(value: unknown, field: string): number {
  return isSet(value) ? jsonDouble(value, field) : 0;
}

/** Walks the parsed request in the order of the schema; keys Strata does not know are ignored, as OTLP/JSON requires. */
class JsonWalker {
  constructor(private readonly mapper: OtlpMapper) {}

  request(root: unknown): void {
    const request = jsonObject(root, 'the request');
    if (request === undefined) throw jsonMalformed('the request', 'must be an object');
    for (const item of jsonList(request.resourceMetrics, 'resourceMetrics')) this.resourceMetrics(jsonElement(item, 'resourceMetrics'));
  }

  private resourceMetrics(resourceMetrics: JsonObject): void {
    const resource = jsonObject(resourceMetrics.resource, 'resource');
    let name = '';
    let namespace = '';
    let instance = '';
    for (const item of jsonList(resource?.attributes, 'resource.attributes')) {
      const kv = jsonElement(item, 'resource.attributes');
      const key = jsonString(kv.key, 'key');
      if (key === 'service.name') name = this.anyText(kv.value);
      else if (key === 'service.namespace') namespace = this.anyText(kv.value);
      else if (key === 'service.instance.id') instance = this.anyText(kv.value);
    }
    this.mapper.beginResource(name, namespace, instance);
    for (const scope of jsonList(resourceMetrics.scopeMetrics, 'scopeMetrics')) {
      for (const metric of jsonList(jsonElement(scope, 'scopeMetrics').metrics, 'metrics')) this.metric(jsonElement(metric, 'metrics'));
    }
  }

  private metric(metric: JsonObject): void {
    const name = jsonString(metric.name, 'name');
    const unit = jsonString(metric.unit, 'unit');
    let kind = 0;
    let data: JsonObject | undefined;
    for (const [key, k] of KIND_KEYS) {
      const value = jsonObject(metric[key], key);
      if (value === undefined) continue;
      if (data !== undefined) throw jsonMalformed('metric', `sets two members of its data oneof (${key} and another)`);
      kind = k;
      data = value;
    }
    if (data === undefined) return;
    const temporality = kind === KIND_SUM ? jsonEnum(data.aggregationTemporality, 'aggregationTemporality') : 0;
    const monotonic = kind === KIND_SUM && jsonBool(data.isMonotonic, 'isMonotonic');
    this.mapper.beginMetric(name, unit, kind, temporality, monotonic);
    const point = this.mapper.point;
    for (const item of jsonList(data.dataPoints, 'dataPoints')) {
      const dataPoint = jsonElement(item, 'dataPoints');
      this.common(dataPoint, point);
      if (kind === KIND_GAUGE || kind === KIND_SUM) this.numberPoint(dataPoint, point);
      else if (kind === KIND_HISTOGRAM) this.histogramPoint(dataPoint, point);
      else if (kind === KIND_EXPONENTIAL_HISTOGRAM) this.countAndSum(dataPoint, point);
      else this.summaryPoint(dataPoint, point);
      this.mapper.endPoint();
    }
  }

  /** What every kind of data point has: attributes, time and flags. */
  private common(dataPoint: JsonObject, point: OtlpPoint): void {
    for (const item of jsonList(dataPoint.attributes, 'attributes')) {
      const kv = jsonElement(item, 'attributes');
      point.addAttribute(jsonString(kv.key, 'key'), this.anyText(kv.value));
    }
    point.timeMs = jsonNanosAsMillis(dataPoint.timeUnixNano, 'timeUnixNano');
    point.flags = jsonUint32(dataPoint.flags, 'flags');
  }

  private numberPoint(dataPoint: JsonObject, point: OtlpPoint): void {
    const asDouble = dataPoint.asDouble;
    const asInt = dataPoint.asInt;
    if (isSet(asDouble) && isSet(asInt)) throw jsonMalformed('dataPoints', 'sets both asDouble and asInt of one oneof');
    if (isSet(asDouble)) point.value = jsonDouble(asDouble, 'asDouble');
    else if (isSet(asInt)) point.value = jsonInt64(asInt, 'asInt');
    else return;
    point.hasValue = true;
  }

  private countAndSum(dataPoint: JsonObject, point: OtlpPoint): void {
    point.count = jsonUint64(dataPoint.count, 'count');
    if (isSet(dataPoint.sum)) {
      point.sum = jsonDouble(dataPoint.sum, 'sum');
      point.hasSum = true;
    }
  }

  private histogramPoint(dataPoint: JsonObject, point: OtlpPoint): void {
    this.countAndSum(dataPoint, point);
    for (const count of jsonList(dataPoint.bucketCounts, 'bucketCounts')) point.addBucketCount(jsonUint64(count, 'bucketCounts'));
    for (const bound of jsonList(dataPoint.explicitBounds, 'explicitBounds')) point.addBound(jsonDouble(bound, 'explicitBounds'));
  }

  private summaryPoint(dataPoint: JsonObject, point: OtlpPoint): void {
    this.countAndSum(dataPoint, point);
    for (const item of jsonList(dataPoint.quantileValues, 'quantileValues')) {
      const q = jsonElement(item, 'quantileValues');
      point.addQuantile(optionalDouble(q.quantile, 'quantile'), optionalDouble(q.value, 'value'));
    }
  }

  /** An AnyValue as a label value (the same forms as the protobuf decoder's). */
  private anyText(value: unknown): string {
    const any = jsonObject(value, 'value');
    if (any === undefined) return '';
    switch (anyMember(any)) {
      case 1:
        return jsonString(any.stringValue, 'stringValue');
      case 2:
        return jsonBool(any.boolValue, 'boolValue') ? 'true' : 'false';
      case 3:
        return jsonInt64Text(any.intValue, 'intValue');
      case 4:
        return doubleText(jsonDouble(any.doubleValue, 'doubleValue'));
      case 5:
        return this.arrayJson(any.arrayValue, 1);
      case 6:
        return this.listJson(any.kvlistValue, 1);
      case 7:
        return bytesText(jsonBytes(any.bytesValue, 'bytesValue'));
      default:
        return '';
    }
  }

  /** An AnyValue inside an array or list at nesting `depth`, as compact JSON. */
  private anyJson(value: unknown, depth: number): string {
    const any = jsonObject(value, 'value');
    if (any === undefined) return EMPTY_JSON;
    switch (anyMember(any)) {
      case 1:
        return stringJson(jsonString(any.stringValue, 'stringValue'));
      case 2:
        return jsonBool(any.boolValue, 'boolValue') ? 'true' : 'false';
      case 3:
        return jsonInt64Text(any.intValue, 'intValue');
      case 4:
        return doubleJson(jsonDouble(any.doubleValue, 'doubleValue'));
      case 5:
        return this.arrayJson(any.arrayValue, depth + 1);
      case 6:
        return this.listJson(any.kvlistValue, depth + 1);
      case 7:
        return stringJson(bytesText(jsonBytes(any.bytesValue, 'bytesValue')));
      default:
        return EMPTY_JSON;
    }
  }

  /** An arrayValue (values: AnyValue[]) at nesting `depth`, as a JSON array. */
  private arrayJson(value: unknown, depth: number): string {
    if (depth > PROTOBUF_DEPTH_MAX) throw jsonMalformed('arrayValue', `nests deeper than ${PROTOBUF_DEPTH_MAX} arrays and lists`);
    const parts: string[] = [];
    for (const item of jsonList(jsonObject(value, 'arrayValue')?.values, 'arrayValue.values')) parts.push(this.anyJson(item, depth));
    return `[${parts.join(',')}]`;
  }

  /** A kvlistValue (values: KeyValue[]) at nesting `depth`, as a JSON object, keys in the order sent. */
  private listJson(value: unknown, depth: number): string {
    if (depth > PROTOBUF_DEPTH_MAX) throw jsonMalformed('kvlistValue', `nests deeper than ${PROTOBUF_DEPTH_MAX} arrays and lists`);
    const parts: string[] = [];
    for (const item of jsonList(jsonObject(value, 'kvlistValue')?.values, 'kvlistValue.values')) {
      const kv = jsonElement(item, 'kvlistValue.values');
      parts.push(memberJson(jsonString(kv.key, 'key'), this.anyJson(kv.value, depth)));
    }
    return `{${parts.join(',')}}`;
  }
}

/**
 * The body with the integer literals of the fields whose 64-bit values must stay exact
 * (time_unix_nano, an attribute's int_value) in quotes: JSON.parse would round such a number to
 * a double, and a quoted integer is a form proto3 JSON accepts too. The key's opening quote must
 * follow `{` or `,` (and JSON white space): inside a JSON string every quote is escaped, so a
 * match is always a real key and a real number, never text in a string. (The global pattern is
 * made here, not shared at module level, as a global RegExp carries state.)
 */
function quoteExactIntegers(text: string): string {
  return text.replace(/([{,][ \t\n\r]*"(?:timeUnixNano|intValue)"[ \t\n\r]*:[ \t\n\r]*)(-?(?:0|[1-9][0-9]*))(?=[ \t\n\r]*[,}])/g, '$1"$2"');
}

/** Decodes an OTLP/JSON ExportMetricsServiceRequest into `mapper`; throws PROTOCOL_BODY_MALFORMED. */
export function decodeOtlpJson(body: Uint8Array, mapper: OtlpMapper): void {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(body);
  } catch {
    throw new StrataError('PROTOCOL_BODY_MALFORMED', 'The OTLP/JSON body is not valid UTF-8.');
  }
  let root: unknown;
  try {
    root = JSON.parse(quoteExactIntegers(text));
  } catch (error) {
    throw new StrataError('PROTOCOL_BODY_MALFORMED', `The OTLP/JSON body is not JSON: ${(error as Error).message}`);
  }
  new JsonWalker(mapper).request(root);
}
