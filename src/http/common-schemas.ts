// Owns the JSON schemas every API's URLs share: the tenant path parameter.
import { TENANT_LENGTH_MAX } from '../core/limits.js';

/** The account in a URL (`:tenant`). Its longest form is the engine's tenant rule; the auth hook has checked the token may use it. */
export const TENANT_PARAM = { type: 'string', minLength: 1, maxLength: TENANT_LENGTH_MAX, description: 'The account (tenant id).' } as const;

/** URLs under a tenant, with no other parameter. */
export const TENANT_PARAMS_SCHEMA = { type: 'object', required: ['tenant'], properties: { tenant: TENANT_PARAM } } as const;
