// Owns reading an import file in the create-domains shape: every rule checked, every problem reported, nothing partial.
import { StrataError } from '../core/errors.js';
import {
  DNS_IMPORT_DOMAINS_MAX,
  DNS_IMPORT_MESSAGES_MAX,
  DNS_IMPORT_RECORDS_MAX,
  DNS_SUBDOMAIN_DEPTH_MAX,
  DNS_TTL_DEFAULT_S,
} from './dns-limits.js';
import { commentProblem, domainNameProblem, emailProblem, recordDataProblem, recordNameProblem, ttlProblem } from './dns-rules.js';
import type { ImportDomain, ImportRecord } from './dns-types.js';

type Json = Record<string, unknown>;

/** Collects problems with their place in the file; counts those beyond the report cap. */
class Problems {
  readonly messages: string[] = [];
  count = 0;
  domains = 0;
  records = 0;
  readonly names = new Set<string>();

  add(path: string, message: string): void {
    this.count++;
    if (this.messages.length < DNS_IMPORT_MESSAGES_MAX) this.messages.push(`${path}: ${message}`);
  }
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function optionalText(problems: Problems, path: string, value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') return problems.add(path, 'must be a string'), undefined;
  const problem = commentProblem(value);
  if (problem !== undefined) problems.add(path, problem);
  return value;
}

function ttlOf(problems: Problems, path: string, value: unknown): number {
  if (value === undefined || value === null) return DNS_TTL_DEFAULT_S;
  const problem = typeof value === 'number' ? ttlProblem(value) : 'must be a number';
  if (problem !== undefined) problems.add(path, problem);
  return typeof value === 'number' ? value : DNS_TTL_DEFAULT_S;
}

/** The array under `container[key]`, as the reference wraps lists ({"records": [...]}, {"domains": [...]}). */
function listOf(problems: Problems, path: string, container: unknown, key: string): unknown[] {
  if (container === undefined || container === null) return [];
  const list = isObject(container) ? container[key] : undefined;
  if (!Array.isArray(list)) return problems.add(path, `must be {"${key}": [...]}`), [];
  return list;
}

function readRecord(problems: Problems, path: string, value: unknown, domain: string): ImportRecord | undefined {
  if (!isObject(value)) return problems.add(path, 'must be an object'), undefined;
  problems.records++;
  const { name, type, data, priority } = value;
  if (typeof name !== 'string' || typeof type !== 'string' || typeof data !== 'string') {
    return problems.add(path, 'needs string name, type and data'), undefined;
  }
  if (priority !== undefined && priority !== null && typeof priority !== 'number') return problems.add(`${path}.priority`, 'must be a number'), undefined;
  const lowerName = name.toLowerCase();
  const nameProblem = recordNameProblem(lowerName, domain);
  if (nameProblem !== undefined) problems.add(`${path}.name`, `${name} ${nameProblem}`);
  const upperType = type.toUpperCase();
  const dataProblem = recordDataProblem(upperType, data, priority ?? undefined);
  if (dataProblem !== undefined) problems.add(path, dataProblem);
  const ttl = ttlOf(problems, `${path}.ttl`, value['ttl']);
  const comment = optionalText(problems, `${path}.comment`, value['comment']);
  return { type: upperType, name: lowerName, data, ttl, priority: priority ?? undefined, comment };
}

function readDomain(problems: Problems, path: string, value: unknown, parent: string | undefined, depth: number): ImportDomain | undefined {
  if (!isObject(value)) return problems.add(path, 'must be an object'), undefined;
  problems.domains++;
  const { name, emailAddress } = value;
  if (typeof name !== 'string') return problems.add(`${path}.name`, 'Must provide a name for each domain'), undefined;
  const lower = name.toLowerCase();
  const nameProblem = domainNameProblem(lower);
  if (nameProblem !== undefined) problems.add(`${path}.name`, `${name} ${nameProblem}`);
  if (parent !== undefined && !lower.endsWith(`.${parent}`)) problems.add(`${path}.name`, `a subdomain of ${parent} must end with .${parent}`);
  if (problems.names.has(lower)) problems.add(`${path}.name`, `${lower} appears more than once in the file`);
  problems.names.add(lower);
  const email = typeof emailAddress === 'string' ? emailAddress : '';
  const emailIssue = emailProblem(email);
  if (emailIssue !== undefined) problems.add(`${path}.emailAddress`, emailIssue);
  const ttl = ttlOf(problems, `${path}.ttl`, value['ttl']);
  const comment = optionalText(problems, `${path}.comment`, value['comment']);
  const recordValues = listOf(problems, `${path}.recordsList`, value['recordsList'], 'records');
  const records = recordValues.flatMap((r, i) => readRecord(problems, `${path}.recordsList.records[${i}]`, r, lower) ?? []);
  const subValues = listOf(problems, `${path}.subdomains`, value['subdomains'], 'domains');
  if (subValues.length > 0 && depth >= DNS_SUBDOMAIN_DEPTH_MAX) {
    problems.add(`${path}.subdomains`, `subdomains nest at most ${DNS_SUBDOMAIN_DEPTH_MAX} deep`);
    return undefined;
  }
  const subdomains = subValues.flatMap((d, i) => readDomain(problems, `${path}.subdomains.domains[${i}]`, d, lower, depth + 1) ?? []);
  return { name: lower, emailAddress: email, ttl, comment, records, subdomains };
}

/**
 * Reads and validates an import document (`{"domains": [...]}`); throws DNS_IMPORT_INVALID listing
 * every problem (up to DNS_IMPORT_MESSAGES_MAX) when there is any, so nothing is imported.
 */
export function readImport(document: unknown): ImportDomain[] {
  const problems = new Problems();
  const values = isObject(document) && Array.isArray(document['domains']) ? document['domains'] : undefined;
  if (values === undefined) throw new StrataError('DNS_IMPORT_INVALID', 'An import file must be {"domains": [...]}.', { messages: ['domains: must be an array'] });
  if (values.length === 0) problems.add('domains', 'must hold at least one domain');
  const domains = values.flatMap((d, i) => readDomain(problems, `domains[${i}]`, d, undefined, 0) ?? []);
  if (problems.domains > DNS_IMPORT_DOMAINS_MAX) problems.add('domains', `an import may create at most ${DNS_IMPORT_DOMAINS_MAX} domains`);
  if (problems.records > DNS_IMPORT_RECORDS_MAX) problems.add('records', `an import may create at most ${DNS_IMPORT_RECORDS_MAX} records`);
  if (problems.count > 0) {
    const more = problems.count - problems.messages.length;
    throw new StrataError('DNS_IMPORT_INVALID', `The import file has ${problems.count} problem(s); nothing was imported.`, {
      messages: problems.messages,
      ...(more > 0 ? { unreported: more } : {}),
    });
  }
  return domains;
}
