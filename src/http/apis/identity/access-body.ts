// Owns rendering the identity `access` document: token, service catalog and user, with the vendor's key prefix.
import type { Principal, UserInfo } from '../../../identity/identity-service.js';
import { buildServiceCatalog } from '../../../identity/service-catalog.js';
import type { Role } from '../../../identity/user-rules.js';

/** What the access document needs besides the principal. */
export interface AccessContext {
  readonly vendorPrefix: string;
  readonly region: string;
  readonly publicUrl: string;
}

const ROLE_DESCRIPTIONS: Readonly<Record<Role, { id: string; description: string }>> = {
  admin: { id: '1', description: 'Reads and writes every API of the tenant.' },
  observer: { id: '2', description: 'Reads every API of the tenant; cannot write.' },
};

function userBody(user: UserInfo, context: AccessContext): Record<string, unknown> {
  const role = ROLE_DESCRIPTIONS[user.role];
  return {
    id: user.id,
    name: user.username,
    roles: [{ id: role.id, name: user.role, description: role.description, tenantId: user.tenant }],
    [`${context.vendorPrefix}-AUTH:defaultRegion`]: context.region,
  };
}

function tokenBody(token: string, principal: Principal, context: AccessContext): Record<string, unknown> {
  const tenant = principal.user.tenant;
  return {
    id: token,
    expires: new Date(principal.expiresMs).toISOString(),
    tenant: { id: tenant, name: tenant },
    [`${context.vendorPrefix}-AUTH:authenticatedBy`]: ['APIKEY'],
  };
}

/** The 200 body of POST /v2.0/tokens: token, serviceCatalog and user. */
export function accessBody(token: string, principal: Principal, context: AccessContext): Record<string, unknown> {
  return {
    access: {
      token: tokenBody(token, principal, context),
      serviceCatalog: buildServiceCatalog({ publicUrl: context.publicUrl, region: context.region, tenant: principal.user.tenant }),
      user: userBody(principal.user, context),
    },
  };
}

/** The 200 body of GET /v2.0/tokens/{id}: token and user, no catalog (as the reference). */
export function validationBody(token: string, principal: Principal, context: AccessContext): Record<string, unknown> {
  return { access: { token: tokenBody(token, principal, context), user: userBody(principal.user, context) } };
}
