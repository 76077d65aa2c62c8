// Owns the JSON schemas of the monitoring API's path parameters: the tenant and the ids a path names.
import { TENANT_PARAM } from '../../common-schemas.js';

type ParamsSchema = { type: 'object'; required: string[]; properties: Record<string, Record<string, unknown>> };

/** The schema of path parameters `names` (the tenant first): every id is a non-empty string; an unknown id is a 404, not a 400. */
export function pathParams(...names: readonly string[]): ParamsSchema {
  const properties: Record<string, Record<string, unknown>> = { tenant: TENANT_PARAM };
  for (const name of names) properties[name] = { type: 'string', minLength: 1 };
  return { type: 'object', required: ['tenant', ...names], properties };
}

/** The `:name` parameters of a path such as `/entities/:entityId/checks`. */
function namesIn(path: string): string[] {
  return [...path.matchAll(/:([A-Za-z]+)/g)].map((match) => match[1] as string);
}

/** Parameters of a collection path. */
export function collectionParams(path: string): ParamsSchema {
  return pathParams(...namesIn(path));
}

/** Parameters of an item of a collection path. */
export function itemParams(path: string, idParam: string): ParamsSchema {
  return pathParams(...namesIn(path), idParam);
}
