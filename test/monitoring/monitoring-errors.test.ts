// Checks schemaFieldError: the first error of a failed body validation becomes the field error naming the key the reference names.
import type { ErrorObject } from 'ajv';
import { describe, expect, it } from 'vitest';
import { schemaFieldError, type SchemaErrorLike } from '../../src/monitoring/monitoring-errors.js';
import type { JsonSchema } from '../../src/monitoring/schemas/json-schema.js';
import { MONITORING_BODY_SCHEMAS as BODIES } from '../../src/monitoring/schemas/monitoring-body-schemas.js';
import { schemaError, validatorOf } from './body-verdict.js';

/** The key and problem schemaFieldError gives for `body` under `schema`. */
function refusal(schema: JsonSchema, body: unknown): { key: unknown; problem: unknown } {
  const error = schemaError(schema, body);
  expect(error?.code).toBe('MONITORING_FIELD_INVALID');
  expect(error?.message).toBe(`Validation error for key '${String(error?.details['key'])}'`);
  return { key: error?.details['key'], problem: error?.details['problem'] };
}

describe('schemaFieldError', () => {
  it("reads Ajv's own errors", () => {
    const validate = validatorOf(BODIES.entity.create);
    expect(validate({})).toBe(false);
    const errors: readonly ErrorObject[] = validate.errors ?? [];
    const like: readonly SchemaErrorLike[] = errors;
    expect(schemaFieldError(like).details).toEqual({ key: 'label', problem: 'is required' });
  });

  it("names 'body' for a body that is not an object", () => {
    for (const body of [null, [], 'x', 5, true]) expect(refusal(BODIES.entity.create, body)).toEqual({ key: 'body', problem: 'the body must be a JSON object' });
    expect(refusal(BODIES.agentToken.update, null).key).toBe('body');
    expect(schemaFieldError([]).details['key']).toBe('body');
  });

  it('names a missing required property, an unknown property, and the property another one needs', () => {
    expect(refusal(BODIES.alarm.create, { check_id: 'chA' })).toEqual({ key: 'notification_plan_id', problem: 'is required' });
    expect(refusal(BODIES.plan.create, { label: 'p', colour: 'red' })).toEqual({ key: 'colour', problem: 'unknown key' });
    expect(refusal(BODIES.check.update, { details: { url: 'https://x.example' } })).toEqual({ key: 'type', problem: 'is required when details is given' });
  });

  it('names the map, not the entry, for metadata and ip_addresses', () => {
    expect(refusal(BODIES.entity.create, { label: 'e', metadata: { k: null } })).toEqual({ key: 'metadata', problem: '"k": must be string' });
    expect(refusal(BODIES.entity.create, { label: 'e', metadata: { ['k'.repeat(300)]: 'v' } }).key).toBe('metadata');
    expect(refusal(BODIES.entity.create, { label: 'e', ip_addresses: { 'a/b': 'x' } })).toEqual({
      key: 'ip_addresses',
      problem: '"a/b": must match format "ipv4" or must match format "ipv6"',
    });
    expect(refusal(BODIES.alarm.update, { metadata: { k: 'v'.repeat(256) } }).key).toBe('metadata');
  });

  it("names 'details.<field>' inside details, and 'details' for details that are not an object", () => {
    const http = (details: unknown) => ({ type: 'remote.http', details });
    expect(refusal(BODIES.check.create, http({}))).toEqual({ key: 'details.url', problem: 'is required' });
    expect(refusal(BODIES.check.create, http({ url: 'https://x.example', colour: 1 }))).toEqual({ key: 'details.colour', problem: 'unknown key' });
    expect(refusal(BODIES.check.create, http({ url: 'https://x.example', headers: { Accept: 5 } }))).toEqual({ key: 'details.headers', problem: '"Accept": must be string' });
    expect(refusal(BODIES.check.create, http({ url: 'https://x.example', method: 'PATCH' })).problem).toMatch(/^must be one of "HEAD", "GET"/);
    expect(refusal(BODIES.check.create, http([])).key).toBe('details');
    expect(refusal(BODIES.notification.create, { label: 'l', type: 'email', details: { address: 5 } }).key).toBe('details.address');
  });

  it('names the top-level property for any other error, also inside its array', () => {
    expect(refusal(BODIES.check.create, { type: 'agent.cpu', period: 29 }).key).toBe('period');
    expect(refusal(BODIES.plan.create, { label: 'p', critical_state: ['ntA', ''] })).toEqual({ key: 'critical_state', problem: '"1": must NOT have fewer than 1 characters' });
    expect(refusal(BODIES.agentToken.create, { label: 5 }).key).toBe('label');
  });
});
