// Owns the service catalog: which services a token's tenant may use, and at which URLs.

/** One endpoint of a catalog entry; `region` is absent for global services. */
export interface CatalogEndpoint {
  readonly region?: string;
  readonly tenantId: string;
  readonly publicURL: string;
}

/** One catalog entry. */
export interface CatalogEntry {
  readonly name: string;
  readonly type: string;
  readonly endpoints: readonly CatalogEndpoint[];
}

/** Inputs of the catalog: where the server is reached, its region and the tenant. */
export interface CatalogInput {
  /** Base URL clients use, without a trailing slash (e.g. http://127.0.0.1:8080). */
  readonly publicUrl: string;
  readonly region: string;
  readonly tenant: string;
}

/** URL path of each service under the public URL; the tenant is appended to each. */
export const SERVICE_PATHS = {
  cloudMetrics: '/metrics/v2.0',
  cloudMetricsIngest: '/ingest/v2.0',
  cloudMonitoring: '/monitoring/v1.0',
  cloudDNS: '/dns/v1.0',
  cloudFeeds: '/feeds',
} as const;

/** Builds the catalog: metrics, ingest and feeds carry the region; monitoring and DNS are global (as the reference). */
export function buildServiceCatalog(input: CatalogInput): CatalogEntry[] {
  const base = input.publicUrl.replace(/\/+$/, '');
  const tenant = input.tenant;
  const url = (path: string): string => `${base}${path}/${encodeURIComponent(tenant)}`;
  const regional = (path: string): CatalogEndpoint[] => [{ region: input.region, tenantId: tenant, publicURL: url(path) }];
  const global = (path: string): CatalogEndpoint[] => [{ tenantId: tenant, publicURL: url(path) }];
  return [
    { name: 'cloudMetrics', type: 'rax:cloudmetrics', endpoints: regional(SERVICE_PATHS.cloudMetrics) },
    { name: 'cloudMetricsIngest', type: 'rax:cloudmetrics', endpoints: regional(SERVICE_PATHS.cloudMetricsIngest) },
    { name: 'cloudMonitoring', type: 'rax:monitor', endpoints: global(SERVICE_PATHS.cloudMonitoring) },
    { name: 'cloudDNS', type: 'rax:dns', endpoints: global(SERVICE_PATHS.cloudDNS) },
    { name: 'cloudFeeds', type: 'rax:feeds', endpoints: regional(SERVICE_PATHS.cloudFeeds) },
  ];
}
