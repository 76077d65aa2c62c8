// Owns `strata dns import`: loading domains, subdomains and records from a create-domains JSON file, all or nothing.
import { readFileSync, statSync } from 'node:fs';
import { Command } from 'commander';
import { dataOption } from './cli-parsers.js';
import { systemClock } from '../core/clock.js';
import { isStrataError, StrataError } from '../core/errors.js';
import { DNS_IMPORT_BYTES_MAX } from '../dns/dns-limits.js';
import { openDns } from '../dns/dns-service.js';
import { isValidTenant } from '../identity/user-rules.js';
import { printError } from './print-error.js';

interface ImportOptions {
  readonly data: string;
  readonly tenant: string;
}

/** Reads and parses the import file; too large or not JSON is DNS_IMPORT_INVALID. */
function readDocument(file: string): unknown {
  const size = statSync(file).size;
  if (size > DNS_IMPORT_BYTES_MAX) {
    throw new StrataError('DNS_IMPORT_INVALID', `${file} is ${size} bytes; an import file may have at most ${DNS_IMPORT_BYTES_MAX}.`, { size });
  }
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as unknown;
  } catch (error) {
    throw new StrataError('DNS_IMPORT_INVALID', `${file} is not valid JSON: ${(error as Error).message}`);
  }
}

function runImport(file: string, options: ImportOptions): void {
  if (!isValidTenant(options.tenant)) {
    throw new StrataError('INGEST_TENANT_INVALID', `tenant ${options.tenant} must be 1 or more letters, digits or . _ -`, { tenant: options.tenant });
  }
  const document = readDocument(file);
  const dns = openDns({ dir: options.data, clock: systemClock });
  try {
    const counts = dns.importDocument(options.tenant, document);
    process.stdout.write(`imported ${counts.domains} domains and ${counts.records} records for tenant ${options.tenant}\n`);
  } finally {
    dns.close();
  }
}

function importCommand(): Command {
  return new Command('import')
    .description('import domains with their records and subdomains from a JSON file ({"domains": [...]}); all or nothing')
    .addOption(dataOption())
    .requiredOption('--tenant <tenant>', 'tenant (account) the domains belong to')
    .argument('<file>', 'JSON file in the create-domains shape (see examples/dns-domains.json)')
    .action((file: string, options: ImportOptions) => {
      try {
        runImport(file, options);
      } catch (error) {
        printError(error);
        // Every problem is listed so one run finds them all; nothing was imported.
        const messages = isStrataError(error) ? error.details['messages'] : undefined;
        if (Array.isArray(messages)) for (const message of messages) process.stderr.write(`  ${String(message)}\n`);
      }
    });
}

/** The `strata dns` command with its `import` subcommand. */
export function dnsCommand(): Command {
  return new Command('dns').description('manage the domain-listing data').addCommand(importCommand());
}
