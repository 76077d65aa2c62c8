// Owns the JSON schemas of the identity API: the authentication body (with the configured vendor prefix) and the token parameters.

/** The authentication body once its schema passed: the vendor's credential object and an optional tenant. */
export interface AuthRequest {
  readonly auth: {
    readonly tenantId?: string;
    readonly tenantName?: string;
    readonly [credentialKey: string]: unknown;
  };
}

/**
 * `{"auth": {"<VENDOR>-KSKEY:apiKeyCredentials": {"username", "apiKey"}, "tenantId"?, "tenantName"?}}`
 * (spec 4 and 5.1). Other credential types may sit beside it (they are not used); tenantId and
 * tenantName name the same account, and giving both is refused, as the reference does.
 */
export function authRequestSchema(vendorPrefix: string): Record<string, unknown> {
  const credentialKey = `${vendorPrefix}-KSKEY:apiKeyCredentials`;
  // No length limits beyond the body's: credentials that do not exist are a 401, whatever their length.
  const tenant = { type: 'string', minLength: 1, description: 'The account the token is for (optional; must be the user\'s).' };
  return {
    type: 'object',
    required: ['auth'],
    properties: {
      auth: {
        type: 'object',
        required: [credentialKey],
        properties: {
          [credentialKey]: {
            type: 'object',
            required: ['username', 'apiKey'],
            properties: {
              username: { type: 'string', minLength: 1, description: 'The account username.' },
              apiKey: { type: 'string', minLength: 1, description: 'The user\'s API key.' },
            },
          },
          tenantId: tenant,
          tenantName: tenant,
        },
        not: { required: ['tenantId', 'tenantName'] },
      },
    },
    examples: [{ auth: { [credentialKey]: { username: 'alice', apiKey: '0123456789abcdef0123456789abcdef' } } }],
  };
}

/** The token named in the URL. */
export const TOKEN_PARAMS_SCHEMA = {
  type: 'object',
  required: ['tokenId'],
  properties: { tokenId: { type: 'string', minLength: 1, description: 'A token id, as issued by POST /v2.0/tokens.' } },
} as const;

/** Validation may name the tenant the token must belong to. */
export const VALIDATE_QUERY_SCHEMA = {
  type: 'object',
  properties: { belongsTo: { type: 'string', minLength: 1, description: 'The token must belong to this tenant, else 404.' } },
} as const;
