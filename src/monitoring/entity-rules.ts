// Owns the stored fields of an entity and building them from a create body or an update over the stored entity.
import { assert } from '../core/assert.js';
import { keep } from './body-merge.js';
import type { EntityCreate, EntityUpdate } from './schemas/entity-schema.js';
import type { Metadata } from './schemas/field-schemas.js';

/** The stored fields of an entity (besides id and times). */
export interface EntityDoc {
  readonly label: string;
  readonly ip_addresses: Readonly<Record<string, string>>;
  readonly metadata: Metadata | null;
  readonly agent_id: string | null;
  readonly managed: boolean;
  readonly uri: string | null;
}

/**
 * The entity a schema-valid body describes: a create fills the defaults (no addresses, metadata,
 * agent or uri; not managed); an update keeps the stored value of every key it leaves out.
 * ip_addresses null means none. Every rule of an entity body is its schema's, so this only merges.
 */
export function entityDoc(input: EntityCreate): EntityDoc;
export function entityDoc(input: EntityUpdate, existing: EntityDoc): EntityDoc;
export function entityDoc(input: EntityUpdate, existing?: EntityDoc): EntityDoc {
  const label = input.label ?? existing?.label;
  assert(label !== undefined, 'an entity create body has a label (its schema requires one)');
  return {
    label,
    ip_addresses: keep(input.ip_addresses, existing?.ip_addresses ?? {}) ?? {},
    metadata: keep(input.metadata, existing?.metadata ?? null),
    agent_id: keep(input.agent_id, existing?.agent_id ?? null),
    managed: keep(input.managed, existing?.managed ?? false),
    uri: keep(input.uri, existing?.uri ?? null),
  };
}
