// Checks `strata dns import` as a user runs it: the example imports, bad files import nothing and exit 2.
import { rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/core/clock.js';
import { openDns } from '../../src/dns/dns-service.js';
import { requireBuiltCli, runCli, tempDir } from './cli-run.js';

const EXAMPLE = resolve(import.meta.dirname, '../../examples/dns-domains.json');
const dirs: string[] = [];

function count(dir: string, tenant: string): number {
  const dns = openDns({ dir, clock: systemClock });
  try {
    return dns.domains(tenant, undefined, { limit: 100, offset: 0 }).totalEntries;
  } finally {
    dns.close();
  }
}

beforeAll(() => requireBuiltCli());
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('strata dns import', () => {
  it('imports the shipped example and refuses to import it twice', async () => {
    const dir = tempDir('dns');
    dirs.push(dir);
    const first = await runCli(['dns', 'import', '--data', dir, '--tenant', 'acme', EXAMPLE]);
    expect(first).toMatchObject({ status: 0, stdout: 'imported 4 domains and 8 records for tenant acme\n', stderr: '' });
    const again = await runCli(['dns', 'import', '--data', dir, '--tenant', 'acme', EXAMPLE]);
    expect(again.status).toBe(2);
    expect(again.stderr).toContain('DNS_IMPORT_INVALID');
    expect(count(dir, 'acme')).toBe(4);
  });

  it('lists every problem of an invalid file and imports nothing', async () => {
    const dir = tempDir('dns');
    dirs.push(dir);
    const file = join(dir, 'bad.json');
    writeFileSync(file, JSON.stringify({ domains: [{ name: 'good.com', emailAddress: 'a@good.com' }, { name: 'bad', emailAddress: 'x' }] }));
    const run = await runCli(['dns', 'import', '--data', dir, '--tenant', 'acme', file]);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('strata: DNS_IMPORT_INVALID: The import file has 2 problem(s); nothing was imported.');
    expect(run.stderr).toContain('  domains[1].name: bad must have at least 2 labels');
    expect(run.stderr).toContain('  domains[1].emailAddress:');
    expect(count(dir, 'acme')).toBe(0);
  });

  it('refuses a file that is not JSON and a malformed tenant', async () => {
    const dir = tempDir('dns');
    dirs.push(dir);
    const file = join(dir, 'x.json');
    writeFileSync(file, '{"domains": [');
    expect((await runCli(['dns', 'import', '--data', dir, '--tenant', 'acme', file])).stderr).toContain('is not valid JSON');
    const tenant = await runCli(['dns', 'import', '--data', dir, '--tenant', 'a b', EXAMPLE]);
    expect(tenant.status).toBe(2);
    expect(tenant.stderr).toContain('INGEST_TENANT_INVALID');
  });
});
