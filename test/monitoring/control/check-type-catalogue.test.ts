// Checks the check type catalogue: exactly the types Strata runs, the reference's shape, and fields that agree with the details schemas the API validates with.
import { describe, expect, it } from 'vitest';
import { COLLECTED_CHECK_TYPES } from '../../../src/agent/collectors/collector-registry.js';
import { AGENT_CHECK_TYPE_IDS, CHECK_TYPE_IDS, type CheckTypeId } from '../../../src/monitoring/check-types.js';
import { checkType, checkTypes, fieldsOf } from '../../../src/monitoring/control/check-type-catalogue.js';
import { defaultProbes } from '../../../src/monitoring/probes/probe-registry.js';
import { CHECK_DETAILS_SCHEMAS } from '../../../src/monitoring/schemas/check-details-schema.js';
import { validatorOf } from '../body-verdict.js';

/** A value each details field accepts, by field name. */
const SAMPLE_VALUES: Readonly<Record<string, unknown>> = {
  url: 'https://www.example.com/',
  method: 'POST',
  follow_redirects: false,
  include_body: true,
  body: 'Welcome',
  body_matches: { title: '<title>' },
  headers: { Accept: 'text/html' },
  auth_user: 'monitor',
  auth_password: 's3cret',
  payload: 'ping',
  port: 2222,
  ssl: true,
  banner_match: '^SSH',
  send_body: 'HELLO\r\n',
  body_match: 'OK',
  count: 3,
  query: 'www.example.com',
  record_type: 'AAAA',
  target: '/dev/sda1',
};

function sample(name: string): unknown {
  expect(SAMPLE_VALUES, `a sample value for field ${name}`).toHaveProperty(name);
  return SAMPLE_VALUES[name];
}

/** Whether the details schema of `type` (compiled by the body Ajv the server uses) admits `details`. */
function admits(type: CheckTypeId, details: Record<string, unknown>): boolean {
  return validatorOf(CHECK_DETAILS_SCHEMAS[type])(details) === true;
}

describe('check type catalogue', () => {
  it('lists the remote types with a probe and the agent types with a collector, sorted by id', () => {
    const ids = checkTypes().map((type) => type.id);
    const probes = [...defaultProbes().keys()];
    expect(ids).toEqual([...probes, ...COLLECTED_CHECK_TYPES].sort());
    expect(ids).toEqual([
      'agent.cpu', 'agent.disk', 'agent.filesystem', 'agent.load_average', 'agent.memory', 'agent.network',
      'remote.dns', 'remote.http', 'remote.ping', 'remote.tcp',
    ]);
    for (const id of ids) expect(CHECK_TYPE_IDS as readonly string[]).toContain(id);
  });

  it('leaves out the agent types Strata accepts but has no collector for', () => {
    const unrun = AGENT_CHECK_TYPE_IDS.filter((id) => !(COLLECTED_CHECK_TYPES as readonly string[]).includes(id));
    expect(unrun).toEqual(['agent.plugin', 'agent.apache', 'agent.mysql', 'agent.redis']);
    for (const id of unrun) expect(checkType(id)).toBeUndefined();
    expect(checkType('remote.ssh')).toBeUndefined();
    expect(checkType('remote.http')?.id).toBe('remote.http');
  });

  it('has the reference shape: category and type agree, platforms only for agent types', () => {
    for (const type of checkTypes()) {
      const category = type.id.startsWith('remote.') ? 'remote' : 'agent';
      expect(type).toMatchObject({ type: category, category });
      if (category === 'agent') expect(type.supported_platforms).toEqual(['Linux']);
      else expect(type).not.toHaveProperty('supported_platforms');
      expect(Object.keys(type).sort()).toEqual(category === 'agent' ? ['category', 'fields', 'id', 'metrics', 'supported_platforms', 'type'] : ['category', 'fields', 'id', 'metrics', 'type']);
      for (const field of type.fields) {
        expect(Object.keys(field).sort()).toEqual(['description', 'name', 'optional']);
        expect(field.description.length, `${type.id}.${field.name} has a description`).toBeGreaterThan(10);
      }
      const names = type.metrics.map((metric) => metric.name);
      expect(new Set(names).size, `${type.id} metric names are unique`).toBe(names.length);
      expect(names.length).toBeGreaterThan(0);
    }
  });

  it('shows the fields the reference documents for the remote types', () => {
    const required = (id: string) => checkType(id)?.fields.filter((field) => !field.optional).map((field) => field.name);
    expect(required('remote.http')).toEqual(['url']);
    expect(required('remote.tcp')).toEqual(['port']);
    expect(required('remote.dns')).toEqual(['query']);
    expect(required('remote.ping')).toEqual([]);
    expect(checkType('remote.ping')?.fields).toEqual([expect.objectContaining({ name: 'count', optional: true })]);
    expect(checkType('agent.cpu')?.fields).toEqual([]);
    expect(checkType('agent.filesystem')?.fields).toEqual([expect.objectContaining({ name: 'target', optional: false })]);
  });

  it('fields agree with what the details schemas accept: required ones are needed, optional ones are taken, no other key is (remote)', () => {
    for (const type of checkTypes()) {
      const id = type.id as CheckTypeId;
      const required = type.fields.filter((field) => !field.optional).map((field) => field.name);
      const minimal = Object.fromEntries(required.map((name) => [name, sample(name)]));
      expect(admits(id, minimal), `${id}: the required fields alone are valid details`).toBe(true);
      for (const name of required) {
        const { [name]: _left, ...without } = minimal;
        expect(admits(id, without), `${id}: ${name} is required`).toBe(false);
      }
      for (const field of type.fields.filter((f) => f.optional)) expect(admits(id, { ...minimal, [field.name]: sample(field.name) }), `${id}: ${field.name} is taken`).toBe(true);
      const full = Object.fromEntries(type.fields.map((field) => [field.name, sample(field.name)]));
      expect(admits(id, full), `${id}: every field at once`).toBe(true);
      // Remote details refuse any key the list does not show; agent details pass other parameters to the agent as given.
      expect(admits(id, { ...minimal, not_a_field: 'x' })).toBe(type.category === 'agent');
    }
  });

  it('reads the fields from the details schema itself (one owner)', () => {
    for (const type of checkTypes()) expect(type.fields).toEqual(fieldsOf(CHECK_DETAILS_SCHEMAS[type.id as CheckTypeId]));
    expect(fieldsOf({ type: 'object', required: ['a'], properties: { a: { type: 'string', description: 'A.' }, b: { type: 'integer' } } })).toEqual([
      { name: 'a', description: 'A.', optional: false },
      { name: 'b', description: '', optional: true },
    ]);
  });
});
