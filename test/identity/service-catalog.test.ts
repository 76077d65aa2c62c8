// Tests the service catalog: entries, types, regions and public URLs ending in the tenant.
import { describe, expect, it } from 'vitest';
import { buildServiceCatalog } from '../../src/identity/service-catalog.js';

describe('buildServiceCatalog', () => {
  it('lists the five services, regional ones with the region, every URL ending in the tenant', () => {
    const catalog = buildServiceCatalog({ publicUrl: 'https://strata.example/', region: 'IAD', tenant: '123456' });
    expect(catalog).toEqual([
      { name: 'cloudMetrics', type: 'rax:cloudmetrics', endpoints: [{ region: 'IAD', tenantId: '123456', publicURL: 'https://strata.example/metrics/v2.0/123456' }] },
      {
        name: 'cloudMetricsIngest',
        type: 'rax:cloudmetrics',
        endpoints: [{ region: 'IAD', tenantId: '123456', publicURL: 'https://strata.example/ingest/v2.0/123456' }],
      },
      { name: 'cloudMonitoring', type: 'rax:monitor', endpoints: [{ tenantId: '123456', publicURL: 'https://strata.example/monitoring/v1.0/123456' }] },
      { name: 'cloudDNS', type: 'rax:dns', endpoints: [{ tenantId: '123456', publicURL: 'https://strata.example/dns/v1.0/123456' }] },
      { name: 'cloudFeeds', type: 'rax:feeds', endpoints: [{ region: 'IAD', tenantId: '123456', publicURL: 'https://strata.example/feeds/123456' }] },
    ]);
  });
});
