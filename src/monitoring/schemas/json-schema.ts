// Owns the JSON Schema (draft-07) shape the monitoring body schemas are written in, and reading it.

/** A JSON Schema type name. */
export type JsonType = 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean' | 'null';

/** A value `enum` and `const` may hold. */
export type JsonScalar = string | number | boolean | null;

/**
 * The draft-07 keywords the monitoring schemas use, and no others: Ajv runs in strict mode, so an
 * unknown keyword is an error when the schema is compiled, and this closed type makes it one at
 * compile time already. A type list may only pair one type with null, since strict mode refuses
 * other unions (use `anyOf` for those). A type alias rather than an interface, so a schema is also
 * a plain `Record<string, unknown>` to whoever hands it on (fastify's route schema).
 */
export type JsonSchema = {
  readonly type?: JsonType | readonly [JsonType, 'null'];
  readonly description?: string;
  readonly examples?: readonly unknown[];
  readonly enum?: readonly JsonScalar[];
  readonly const?: JsonScalar;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly pattern?: string;
  readonly format?: 'ipv4' | 'ipv6';
  readonly minimum?: number;
  readonly maximum?: number;
  readonly items?: JsonSchema;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  readonly required?: readonly string[];
  readonly additionalProperties?: boolean | JsonSchema;
  readonly propertyNames?: JsonSchema;
  readonly minProperties?: number;
  readonly maxProperties?: number;
  readonly dependencies?: Readonly<Record<string, readonly string[]>>;
  readonly anyOf?: readonly JsonSchema[];
  readonly allOf?: readonly JsonSchema[];
  readonly if?: JsonSchema;
  readonly then?: JsonSchema;
};

/** The create and update body schemas of one kind of monitoring object. */
export interface BodySchemas {
  readonly create: JsonSchema;
  readonly update: JsonSchema;
}

/**
 * The update schema of a create schema: the same properties and rules, nothing required (keys left
 * out keep their stored value), one field of each create example as its examples; `extra` adds
 * update-only keywords.
 */
export function updateSchemaOf(create: JsonSchema, description: string, extra: JsonSchema = {}): JsonSchema {
  const { required: _required, examples, ...rest } = create;
  // An update names only what it changes: each create example's first field stands for one.
  const updates = (examples ?? []).flatMap((example) => {
    const first = Object.entries(example as Record<string, unknown>)[0];
    return first === undefined ? [] : [Object.fromEntries([first])];
  });
  return { ...rest, ...extra, description, ...(updates.length > 0 ? { examples: updates } : {}) };
}

/**
 * `allOf` entries that apply `detailsOf[type]` to the `details` of a body whose `type` is that
 * type (bodies without a type are left to `required` or to the update rules).
 */
export function detailsByType(detailsOf: Readonly<Record<string, JsonSchema>>): JsonSchema[] {
  return Object.entries(detailsOf).map(([type, details]) => ({
    if: { properties: { type: { const: type } }, required: ['type'] },
    then: { properties: { details } },
  }));
}

/** The first property `schema` requires, or undefined: what an empty object given to it lacks first. */
export function firstRequired(schema: JsonSchema): string | undefined {
  return schema.required?.[0];
}
