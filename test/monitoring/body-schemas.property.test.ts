// Properties of the monitoring body schemas: they compile in strict mode, their examples are valid, and an unknown key is refused by name.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkCriteria } from '../../src/monitoring/alarm-rules.js';
import type { JsonSchema } from '../../src/monitoring/schemas/json-schema.js';
import { MONITORING_BODY_SCHEMAS } from '../../src/monitoring/schemas/monitoring-body-schemas.js';
import { REMOTE_CHECK_TYPE_IDS } from '../../src/monitoring/check-types.js';
import { CHECK_DETAILS_SCHEMAS } from '../../src/monitoring/schemas/check-details-schema.js';
import { schemaError, validatorOf } from './body-verdict.js';

const KINDS = Object.entries(MONITORING_BODY_SCHEMAS);
const SCHEMAS = KINDS.flatMap(([kind, { create, update }]) => [
  { name: `${kind}.create`, schema: create, examples: create.examples ?? [] },
  { name: `${kind}.update`, schema: update, examples: [...(create.examples ?? []), ...(update.examples ?? [])] },
]);

/** Every property of a schema, each with a description (the API document shows them). */
function undescribed(schema: JsonSchema): string[] {
  return Object.entries(schema.properties ?? {})
    .filter(([, property]) => property.description === undefined || property.description === '')
    .map(([name]) => name);
}

/** A body key no schema knows: any name but a known property. */
function unknownKey(schema: JsonSchema): fc.Arbitrary<string> {
  return fc.string({ maxLength: 12 }).filter((key) => !Object.hasOwn(schema.properties ?? {}, key));
}

describe('monitoring body schemas', () => {
  it('every schema compiles with the strict body Ajv, refuses unknown keys and describes every property', () => {
    for (const { name, schema } of SCHEMAS) {
      expect(() => validatorOf(schema), name).not.toThrow();
      expect(schema.type, name).toBe('object');
      expect(schema.additionalProperties, name).toBe(false);
      expect(undescribed(schema), name).toEqual([]);
      expect(typeof schema.description, name).toBe('string');
    }
  });

  it('only create schemas require keys; every schema has examples, an update one field of a create example', () => {
    for (const [kind, { create, update }] of KINDS) {
      expect(update.required, kind).toBeUndefined();
      expect(create.examples?.length ?? 0, kind).toBeGreaterThan(0);
      expect(update.examples?.length ?? 0, kind).toBeGreaterThan(0);
      for (const example of update.examples ?? []) expect(Object.keys(example as object), kind).toHaveLength(1);
    }
  });

  it("every create example is valid for its create and its update schema, and alarm examples' criteria parse", () => {
    for (const { name, schema, examples } of SCHEMAS) {
      for (const example of examples) expect(schemaError(schema, example)?.details, `${name}: ${JSON.stringify(example)}`).toBeUndefined();
    }
    for (const example of MONITORING_BODY_SCHEMAS.alarm.create.examples ?? []) {
      const { criteria } = example as { criteria?: string };
      if (criteria !== undefined) expect(() => checkCriteria(criteria)).not.toThrow();
    }
  });

  it('a valid body with one unknown key added is refused naming that key', () => {
    for (const { name, schema, examples } of SCHEMAS) {
      const example = fc.constantFrom(...(examples as Record<string, unknown>[]));
      // Update bodies are partial: any valid subset of an example's keys, with the unknown key added.
      const body = schema.required === undefined ? example.chain((full) => fc.subarray(Object.keys(full)).map((keys) => Object.fromEntries(keys.map((k) => [k, full[k]])))) : example;
      fc.assert(
        fc.property(body, unknownKey(schema), fc.jsonValue(), (valid, key, value) => {
          fc.pre(schemaError(schema, valid) === undefined);
          const error = schemaError(schema, Object.fromEntries([...Object.entries(valid), [key, value]]));
          expect(error?.details, name).toEqual({ key, problem: 'unknown key' });
          expect(error?.code, name).toBe('MONITORING_FIELD_INVALID');
          expect(error?.message, name).toBe(`Validation error for key '${key}'`);
        }),
        { numRuns: 200 },
      );
    }
  });
});

describe('remote check details schemas', () => {
  const createCheck = MONITORING_BODY_SCHEMAS.check.create;
  const body = (type: string, details: unknown) => ({ type, details, monitoring_zones_poll: ['mzdfw'], target_alias: 'web' });

  it('every remote type has a closed details schema whose properties are all described', () => {
    for (const type of REMOTE_CHECK_TYPE_IDS) {
      const schema = CHECK_DETAILS_SCHEMAS[type];
      expect(schema.additionalProperties, type).toBe(false);
      expect(undescribed(schema), type).toEqual([]);
      expect(typeof schema.description, type).toBe('string');
    }
  });

  it('ports are the integers 1 to 65535 for remote.tcp and remote.dns; anything else is refused naming details.port', () => {
    const within = fc.integer({ min: 1, max: 65_535 });
    const outside = fc.oneof(fc.integer({ max: 0 }), fc.integer({ min: 65_536 }), fc.double({ noInteger: true, noNaN: true }), fc.string());
    fc.assert(
      fc.property(within, outside, (good, bad) => {
        expect(schemaError(createCheck, body('remote.tcp', { port: good }))).toBeUndefined();
        expect(schemaError(createCheck, body('remote.dns', { query: 'example.com', port: good }))).toBeUndefined();
        expect(schemaError(createCheck, body('remote.tcp', { port: bad }))?.details['key']).toBe('details.port');
        expect(schemaError(createCheck, body('remote.dns', { query: 'example.com', port: bad }))?.details['key']).toBe('details.port');
      }),
    );
  });

  it('a remote.dns query made of valid labels is admitted, and one with a character outside letters, digits, dash, underscore and dot is not', () => {
    const label = fc.stringMatching(/^[A-Za-z0-9_](?:[-A-Za-z0-9_]{0,20}[A-Za-z0-9_])?$/);
    const name = fc.array(label, { minLength: 1, maxLength: 6 }).map((labels) => labels.join('.'));
    const bad = fc.constantFrom(' ', '/', '@', '!', '*', ',', '"', '\\');
    fc.assert(
      fc.property(name, bad, fc.nat(), (query, character, at) => {
        expect(schemaError(createCheck, body('remote.dns', { query }))).toBeUndefined();
        const broken = query.slice(0, at % query.length) + character + query.slice(at % query.length);
        expect(schemaError(createCheck, body('remote.dns', { query: broken }))?.details['key']).toBe('details.query');
      }),
    );
  });
});
