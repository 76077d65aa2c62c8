// Owns the routes replay may send (the five the recorder records) and matching a recorded method and URL against them.

/** Route names in reports (docs/recording.md), in report order. */
export const REPLAY_ROUTES = ['ingest', 'ingest/multi', 'views (GET)', 'views (POST)', 'search'] as const;

/** A route name of a report. */
export type ReplayRoute = (typeof REPLAY_ROUTES)[number];

/** One replayable route: its method and its path as segments, `{tenant}` and `{metric}` standing for one non-empty segment. */
interface RouteSpec {
  readonly route: ReplayRoute;
  readonly method: 'GET' | 'POST';
  readonly segments: readonly string[];
}

/**
 * The only requests replay sends. A recording is a file anyone can hand over, so everything
 * else in it (a DELETE of a token, a write to another API) is skipped, never sent with the
 * replaying user's token. The recorder (src/http/request-recorder.ts) keeps the same five as
 * fastify route patterns; replay may not import http, so this table is replay's own.
 */
const ROUTE_SPECS: readonly RouteSpec[] = [
  { route: 'ingest', method: 'POST', segments: ['ingest', 'v2.0', '{tenant}', 'ingest'] },
  { route: 'ingest/multi', method: 'POST', segments: ['ingest', 'v2.0', '{tenant}', 'ingest', 'multi'] },
  { route: 'views (GET)', method: 'GET', segments: ['metrics', 'v2.0', '{tenant}', 'views', '{metric}'] },
  { route: 'views (POST)', method: 'POST', segments: ['metrics', 'v2.0', '{tenant}', 'views'] },
  { route: 'search', method: 'GET', segments: ['metrics', 'v2.0', '{tenant}', 'metrics', 'search'] },
];

/** A recorded URL that names a replayable route, split where replay changes it. */
export interface RouteMatch {
  readonly route: ReplayRoute;
  /** The tenant the URL names (its segment, percent-decoded). */
  readonly tenant: string;
  /** The URL before the tenant segment, e.g. `/metrics/v2.0/`. */
  readonly beforeTenant: string;
  /** The URL after the tenant segment, query included, e.g. `/views/cpu?from=1&to=2`. */
  readonly afterTenant: string;
}

function decoded(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/**
 * True when a path cannot be sent as it is: not starting with '/', an empty segment (`//`), or a
 * `.` or `..` segment (also percent-encoded), which a proxy in front of the target could resolve
 * into another route.
 */
function unsafePath(path: string): boolean {
  if (!path.startsWith('/')) return true;
  return path
    .slice(1)
    .split('/')
    .some((segment) => {
      const text = decoded(segment);
      return segment === '' || text === undefined || text === '.' || text === '..';
    });
}

/** The replayable route of a recorded method and URL, or null when replay must not send it. */
export function matchRoute(method: string, url: string): RouteMatch | null {
  const question = url.indexOf('?');
  const path = question === -1 ? url : url.slice(0, question);
  if (unsafePath(path) || url.includes('#')) return null;
  const segments = path.slice(1).split('/');
  for (const spec of ROUTE_SPECS) {
    if (spec.method !== method || spec.segments.length !== segments.length) continue;
    if (!spec.segments.every((expected, i) => expected.startsWith('{') || expected === segments[i])) continue;
    const index = spec.segments.indexOf('{tenant}');
    const tenantSegment = segments[index] as string;
    const tenant = decoded(tenantSegment) as string;
    const beforeTenant = `/${segments.slice(0, index).join('/')}/`;
    return { route: spec.route, tenant, beforeTenant, afterTenant: url.slice(beforeTenant.length + tenantSegment.length) };
  }
  return null;
}
