// Tests the admission settings: defaults, tenant budgets that follow their kind, validation, and the `strata serve` flags that set them.
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { serveOptions, type ServeOptions } from '../../src/cli/serve-options.js';
import { HTTP_BODY_BYTES_MAX, VIEWS_BODY_BYTES_MAX } from '../../src/http/http-limits.js';
import { resolveServerConfig } from '../../src/http/server-config.js';

const MIB = 1024 * 1024;

function parseServe(args: readonly string[], env: Record<string, string> = {}): ServeOptions {
  const saved = { ...process.env };
  Object.assign(process.env, env);
  try {
    const command = new Command('serve').exitOverride().configureOutput({ writeErr: () => undefined });
    for (const option of serveOptions()) command.addOption(option);
    command.parse(['node', 'serve', ...args]);
    return command.opts<ServeOptions>();
  } finally {
    for (const key of Object.keys(env)) delete process.env[key];
    Object.assign(process.env, saved);
  }
}

describe('admission config', () => {
  it('defaults: queues as before, byte budgets, and tenants half of their kind', () => {
    const { ingest, query } = resolveServerConfig().admission;
    expect(ingest).toEqual({ concurrency: 4, queueMax: 64, tenantRequestsMax: 34, bodyBytesMax: 64 * MIB, tenantBodyBytesMax: 32 * MIB });
    expect(query).toEqual({ concurrency: 8, queueMax: 256, tenantRequestsMax: 132, bodyBytesMax: 8 * MIB, tenantBodyBytesMax: 4 * MIB });
  });

  it('tenant budgets not given follow their kind, never below the largest body', () => {
    const { ingest } = resolveServerConfig({ admission: { ingest: { queueMax: 196, bodyBytesMax: 20 * MIB } } }).admission;
    expect(ingest.tenantRequestsMax).toBe(100);
    // Half of 20 MiB would not hold one 16 MiB body.
    expect(ingest.tenantBodyBytesMax).toBe(HTTP_BODY_BYTES_MAX);
    expect(resolveServerConfig({ admission: { ingest: { concurrency: 1, queueMax: 0 } } }).admission.ingest.tenantRequestsMax).toBe(1);
  });

  it('keeps the default of a field given as undefined (an unset flag)', () => {
    const { ingest } = resolveServerConfig({ admission: { ingest: { tenantRequestsMax: undefined, bodyBytesMax: undefined } } }).admission;
    expect(ingest.tenantRequestsMax).toBe(34);
    expect(ingest.bodyBytesMax).toBe(64 * MIB);
  });

  it('refuses budgets that could never bind or never admit, naming the option', () => {
    const option = (input: Parameters<typeof resolveServerConfig>[0]): unknown => {
      try {
        resolveServerConfig(input);
      } catch (error) {
        return (error as { code: string; details: { option: string } }).details.option;
      }
      return undefined;
    };
    expect(option({ admission: { ingest: { tenantRequestsMax: 69 } } })).toBe('admission.ingest.tenantRequestsMax');
    expect(option({ admission: { ingest: { bodyBytesMax: 8 * MIB } } })).toBe('admission.ingest.bodyBytesMax');
    expect(option({ bodyLimitBytes: 4 * MIB, admission: { ingest: { bodyBytesMax: 8 * MIB, tenantBodyBytesMax: 2 * MIB } } })).toBe('admission.ingest.tenantBodyBytesMax');
    expect(option({ admission: { query: { bodyBytesMax: VIEWS_BODY_BYTES_MAX - 1 } } })).toBe('admission.query.bodyBytesMax');
    expect(option({ admission: { query: { tenantBodyBytesMax: 9 * MIB } } })).toBe('admission.query.tenantBodyBytesMax');
    // A smaller body limit lets the byte budgets shrink with it.
    expect(option({ bodyLimitBytes: 4 * MIB, admission: { ingest: { bodyBytesMax: 8 * MIB } } })).toBeUndefined();
  });
});

describe('strata serve admission flags', () => {
  it('reads every budget from its flag or its environment variable', () => {
    const flags = parseServe(['--ingest-tenant-requests', '10', '--ingest-body-bytes', '33554432', '--query-tenant-body-bytes', '1048576']);
    expect(flags).toMatchObject({ ingestTenantRequests: 10, ingestBodyBytes: 32 * MIB, queryTenantBodyBytes: MIB, queryBodyBytes: 8 * MIB });
    expect(flags.ingestTenantBodyBytes).toBeUndefined();
    const env = parseServe([], { STRATA_QUERY_TENANT_REQUESTS: '7', STRATA_INGEST_TENANT_BODY_BYTES: '20000000' });
    expect(env).toMatchObject({ queryTenantRequests: 7, ingestTenantBodyBytes: 20_000_000 });
  });

  it('refuses a value that is not a positive integer', () => {
    expect(() => parseServe(['--ingest-body-bytes', '0'])).toThrow(/expected an integer/);
    expect(() => parseServe(['--query-tenant-requests', 'many'])).toThrow(/expected an integer/);
  });
});
