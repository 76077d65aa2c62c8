// Owns the per-metric rules the fast and the full decoders both apply: the ttl range and the tenant a scope allows.
import type { IngestScope } from './ingest-mapping.js';
import { TTL_SECONDS_MAX } from './wire-limits.js';

/** True when a ttlInSeconds value is acceptable (an integer from 1 to TTL_SECONDS_MAX). */
export function ttlAcceptable(ttl: number): boolean {
  return Number.isInteger(ttl) && ttl >= 1 && ttl <= TTL_SECONDS_MAX;
}

/** The tenant rule both decoders apply: why a metric's tenantId may not be written in this scope: missing (multi needs one), forbidden, or undefined when it may. */
export function tenantIdProblem(scope: IngestScope & { multi: true }, tenantId: unknown): 'missing' | 'forbidden' | undefined {
  if (typeof tenantId !== 'string' || tenantId === '') return 'missing';
  return scope.anyTenant || tenantId === scope.ownTenant ? undefined : 'forbidden';
}
