// Owns a tenant's account settings: technical contacts, the webhook token (encrypted at rest, readable, rotatable), metadata.
import { assert } from '../../core/assert.js';
import type { CollectionDeps } from '../doc-collection.js';
import type { DeliveryAccount } from '../delivery/channel-types.js';
import type { Metadata } from '../schemas/field-schemas.js';
import type { SecretBox } from '../secret-box.js';
import { accountIdOf, mergedAccountFields, newWebhookToken, webhookTokenContext } from './account-rules.js';
import type { AccountUpdate } from './account-schema.js';
import { AccountStore, type StoredAccount } from './account-store.js';

/** What the account service needs: the store and clock, and the box the webhook token is encrypted with. */
export interface AccountServiceDeps extends CollectionDeps {
  readonly secrets: SecretBox;
}

/** A tenant's account settings as the admin reads them: the webhook token in plaintext. */
export interface AccountSettings {
  /** `ac` and 8 letters or digits, derived from the tenant (stable). */
  readonly id: string;
  readonly technicalContacts: readonly string[];
  readonly webhookToken: string;
  readonly metadata: Metadata | null;
  readonly createdMs: number;
  readonly updatedMs: number;
}

/**
 * The account settings of each tenant, made on first use with no contacts and a fresh random
 * webhook token. The token must be recoverable, since every webhook delivery sends it, so it is
 * encrypted with the server's SecretBox rather than hashed; reading it needs monitoring.key
 * (MONITORING_SECRET_UNREADABLE otherwise, until a new token is set or generated).
 */
export class AccountService {
  private readonly accounts: AccountStore;

  constructor(private readonly deps: AccountServiceDeps) {
    this.accounts = new AccountStore(deps.store.db);
  }

  private seal(tenant: string, token: string): string {
    return this.deps.secrets.encrypt(token, webhookTokenContext(tenant));
  }

  /** The tenant's stored account, made now (no contacts, a generated token, no metadata) when it has none. */
  private stored(tenant: string): StoredAccount {
    const found = this.accounts.get(tenant);
    if (found !== undefined) return found;
    this.accounts.create(tenant, { technicalContacts: [], metadata: null }, this.seal(tenant, newWebhookToken()), this.deps.clock.now());
    const made = this.accounts.get(tenant);
    assert(made !== undefined, 'an account exists once created');
    return made;
  }

  private settings(tenant: string, stored: StoredAccount, webhookToken: string): AccountSettings {
    const { technicalContacts, metadata, createdMs, updatedMs } = stored;
    return { id: accountIdOf(tenant), technicalContacts, webhookToken, metadata, createdMs, updatedMs };
  }

  /** The stored account, read without a transaction once it exists (deliveries read it for every attempt). */
  private read(tenant: string): StoredAccount {
    return this.accounts.get(tenant) ?? this.deps.store.transaction(() => this.stored(tenant));
  }

  private decrypted(tenant: string, stored: StoredAccount): string {
    return this.deps.secrets.decrypt(stored.sealedWebhookToken, webhookTokenContext(tenant));
  }

  /** The tenant's settings with the webhook token decrypted; MONITORING_SECRET_UNREADABLE when it does not decrypt. */
  account(tenant: string): AccountSettings {
    const stored = this.read(tenant);
    return this.settings(tenant, stored, this.decrypted(tenant, stored));
  }

  /**
   * Updates the settings from a body its schema has admitted: the keys given replace the stored
   * ones (contacts deduplicated, in order), a webhook_token given is encrypted anew; the others stay.
   * Needs no decryption, so it also repairs an account whose token no longer decrypts.
   */
  updateAccount(tenant: string, body: AccountUpdate): void {
    const sealed = body.webhook_token === undefined ? undefined : this.seal(tenant, body.webhook_token);
    this.deps.store.transaction(() => {
      const nowMs = this.deps.clock.now();
      this.accounts.setFields(tenant, mergedAccountFields(body, this.stored(tenant)), nowMs);
      if (sealed !== undefined) this.accounts.setWebhookToken(tenant, sealed, nowMs);
    });
  }

  /** Replaces the webhook token with a freshly generated one; returns the settings with it. */
  rotateWebhookToken(tenant: string): AccountSettings {
    const token = newWebhookToken();
    const sealed = this.seal(tenant, token);
    const stored = this.deps.store.transaction(() => {
      this.stored(tenant);
      this.accounts.setWebhookToken(tenant, sealed, this.deps.clock.now());
      return this.stored(tenant);
    });
    return this.settings(tenant, stored, token);
  }

  /** What a delivery needs: the contacts and the token in plaintext (MONITORING_SECRET_UNREADABLE when it does not decrypt). */
  deliveryAccount(tenant: string): DeliveryAccount {
    const stored = this.read(tenant);
    return { technicalContacts: stored.technicalContacts, webhookToken: this.decrypted(tenant, stored) };
  }
}
