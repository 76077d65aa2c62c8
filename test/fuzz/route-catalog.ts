// Owns enumerating what to fuzz from the running server itself: every route pattern fastify's router holds, each method it answers, and what the OpenAPI document says of it.
import type { FastifyInstance } from 'fastify';

/** The APIs whose error bodies differ; `root` is the operational routes and every URL outside the API prefixes (the metrics shape). */
export type ApiName = 'identity' | 'ingest' | 'metrics' | 'monitoring' | 'feeds' | 'dns' | 'prometheus' | 'otlp' | 'root';

/** Each API's URL prefix (api-registry.ts), as a client sees it; the longest prefix a path is under names its API. */
export const API_PREFIXES: Readonly<Record<Exclude<ApiName, 'root'>, string>> = {
  identity: '/v2.0',
  ingest: '/ingest/v2.0',
  metrics: '/metrics/v2.0',
  monitoring: '/monitoring/v1.0',
  feeds: '/feeds',
  dns: '/dns/v1.0',
  prometheus: '/prometheus',
  otlp: '/otlp',
};

/** The API a URL path belongs to (the longest prefix it is under, `root` outside them all). */
export function apiOfPath(path: string): ApiName {
  let found: ApiName = 'root';
  let length = 0;
  for (const [name, prefix] of Object.entries(API_PREFIXES) as [ApiName, string][]) {
    if ((path === prefix || path.startsWith(`${prefix}/`)) && prefix.length > length) {
      found = name;
      length = prefix.length;
    }
  }
  return found;
}

/** A request body example of a documented operation, with its media type. */
export interface BodyExample {
  readonly type: string;
  readonly value: unknown;
}

/** One route and method to fuzz. */
export interface Operation {
  /** Fastify's pattern, e.g. `/monitoring/v1.0/:tenant/entities/:entityId`. */
  readonly pattern: string;
  readonly method: string;
  /** True when the OpenAPI document lists it (a real operation); false for the 405 answers, HEAD and the document itself. */
  readonly documented: boolean;
  readonly api: ApiName;
  /** Path parameter names, in URL order. */
  readonly pathParams: readonly string[];
  /** Documented query parameters and their schemas. */
  readonly queryParams: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  /** Documented request body media types (empty when the document lists no body). */
  readonly bodyTypes: readonly string[];
  /** Documented request body examples. */
  readonly examples: readonly BodyExample[];
}

interface OpenApiParameter {
  readonly in: string;
  readonly name: string;
  readonly schema?: Record<string, unknown>;
}
interface OpenApiMedia {
  readonly example?: unknown;
  readonly examples?: Record<string, { value: unknown }>;
}
interface OpenApiOperation {
  readonly parameters?: readonly OpenApiParameter[];
  readonly requestBody?: { content: Record<string, OpenApiMedia> };
}
/** The part of the OpenAPI document read here. */
export interface OpenApiDoc {
  readonly paths: Record<string, Record<string, OpenApiOperation>>;
}

/** Every route pattern of fastify's tree (printRoutes without common prefixes) with the methods registered on it. */
export function routeTable(app: FastifyInstance): Map<string, string[]> {
  const table = new Map<string, string[]>();
  const stack: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^([│ ]*)[├└]── (.+?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (match === null) continue;
    const depth = (match[1] as string).length / 4;
    stack.length = depth;
    stack.push(match[2] as string);
    if (match[3] !== undefined) table.set(stack.join(''), match[3].split(', '));
  }
  return table;
}

const asOpenApi = (pattern: string): string => pattern.replace(/:([A-Za-z]+)/g, '{$1}');

function examplesOf(operation: OpenApiOperation | undefined): BodyExample[] {
  const examples: BodyExample[] = [];
  for (const [type, media] of Object.entries(operation?.requestBody?.content ?? {})) {
    if (media.example !== undefined) examples.push({ type, value: media.example });
    for (const named of Object.values(media.examples ?? {})) examples.push({ type, value: named.value });
  }
  return examples;
}

/**
 * Every route and method the server answers: the router's table gives the patterns and methods
 * (a new route is fuzzed without touching this suite), the OpenAPI document their parameters,
 * body types and examples.
 */
export function enumerateOperations(app: FastifyInstance, doc: OpenApiDoc): Operation[] {
  const operations: Operation[] = [];
  for (const [pattern, methods] of routeTable(app)) {
    for (const method of methods) {
      const documentedAs = method === 'HEAD' ? 'get' : method.toLowerCase();
      const operation = doc.paths[asOpenApi(pattern)]?.[documentedAs];
      const parameters = operation?.parameters ?? [];
      const queryParams: Record<string, Record<string, unknown>> = {};
      for (const parameter of parameters) if (parameter.in === 'query') queryParams[parameter.name] = parameter.schema ?? {};
      operations.push({
        pattern,
        method,
        documented: operation !== undefined && method !== 'HEAD',
        api: apiOfPath(pattern),
        pathParams: [...pattern.matchAll(/:([A-Za-z]+)/g)].map((m) => m[1] as string),
        queryParams,
        bodyTypes: Object.keys(operation?.requestBody?.content ?? {}),
        examples: method === 'HEAD' ? [] : examplesOf(operation),
      });
    }
  }
  return operations;
}

/** A short name of an operation for test titles. */
export function operationName(operation: Operation): string {
  return `${operation.method} ${operation.pattern}`;
}
