// Checks the account settings through the monitoring service on disk: made on first use, updated, rotated, the webhook token encrypted and bound to its tenant.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { isStrataError } from '../../../src/core/errors.js';
import { accountIdOf } from '../../../src/monitoring/account/account-rules.js';
import { openMonitoring, type MonitoringService } from '../../../src/monitoring/monitoring-service.js';
import { TOKEN_KEY_FILE_NAME } from '../../../src/monitoring/token-key.js';
import { expectNotOnDisk } from '../secrets-on-disk.js';

const START_MS = 1_790_000_000_000;
const GENERATED = /^[A-Za-z0-9]{32}$/;

/** The stored webhook_token column of a tenant's account. */
function storedToken(monitoring: MonitoringService, tenant: string): string {
  return (monitoring.store.db.prepare('SELECT webhook_token FROM mon_account WHERE tenant = ?').get(tenant) as { webhook_token: string }).webhook_token;
}

/** The code of the StrataError `work` throws ('ok' when it does not throw). */
function codeOf(work: () => unknown): string {
  try {
    work();
    return 'ok';
  } catch (error) {
    if (isStrataError(error)) return error.code;
    throw error;
  }
}

describe('AccountService', () => {
  let dir: string;
  let clock: ManualClock;
  let monitoring: MonitoringService;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'strata-account-'));
    clock = new ManualClock(START_MS);
    monitoring = openMonitoring({ dir, clock });
  });
  afterEach(() => {
    monitoring.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('makes the account on first use: a stable id, no contacts, a generated token, no metadata', () => {
    const first = monitoring.account.account('t1');
    expect(first).toEqual({ id: accountIdOf('t1'), technicalContacts: [], webhookToken: expect.stringMatching(GENERATED), metadata: null, createdMs: START_MS, updatedMs: START_MS });
    expect(first.id).toMatch(/^ac[A-Za-z0-9]{8}$/);
    clock.advance(10);
    expect(monitoring.account.account('t1')).toEqual(first);
    monitoring.close();
    monitoring = openMonitoring({ dir, clock });
    // Same token after a reopen: it is stored encrypted under monitoring.key, which stays.
    expect(monitoring.account.account('t1')).toEqual(first);
  });

  it('gives each tenant its own id and token', () => {
    const a = monitoring.account.account('t1');
    const b = monitoring.account.account('t2');
    expect(a.id).not.toBe(b.id);
    expect(a.webhookToken).not.toBe(b.webhookToken);
    monitoring.account.updateAccount('t1', { technical_contacts: ['ops@example.com'], webhook_token: 'OnlyForTenantOne1234' });
    expect(monitoring.account.account('t2')).toEqual(b);
  });

  it('updates the fields a body gives and keeps the others; contacts once each, in order', () => {
    monitoring.account.account('t1');
    clock.advance(1000);
    monitoring.account.updateAccount('t1', { technical_contacts: ['b@example.com', 'a@example.com', 'b@example.com'], metadata: { team: 'ops' } });
    const updated = monitoring.account.account('t1');
    expect(updated).toMatchObject({ technicalContacts: ['b@example.com', 'a@example.com'], metadata: { team: 'ops' }, createdMs: START_MS, updatedMs: START_MS + 1000 });
    clock.advance(1000);
    monitoring.account.updateAccount('t1', { webhook_token: 'ChosenToken0123456789' });
    expect(monitoring.account.account('t1')).toEqual({ ...updated, webhookToken: 'ChosenToken0123456789', updatedMs: START_MS + 2000 });
    monitoring.account.updateAccount('t1', { metadata: null, technical_contacts: [] });
    expect(monitoring.account.account('t1')).toMatchObject({ technicalContacts: [], metadata: null, webhookToken: 'ChosenToken0123456789' });
  });

  it('an update before any read makes the account with the update applied', () => {
    monitoring.account.updateAccount('t1', { technical_contacts: ['ops@example.com'] });
    expect(monitoring.account.account('t1')).toMatchObject({ technicalContacts: ['ops@example.com'], webhookToken: expect.stringMatching(GENERATED) });
  });

  it('rotates the token: a new generated one, returned and stored', () => {
    const before = monitoring.account.account('t1');
    clock.advance(7);
    const rotated = monitoring.account.rotateWebhookToken('t1');
    expect(rotated.webhookToken).toMatch(GENERATED);
    expect(rotated.webhookToken).not.toBe(before.webhookToken);
    expect(rotated).toEqual({ ...before, webhookToken: rotated.webhookToken, updatedMs: START_MS + 7 });
    expect(monitoring.account.account('t1')).toEqual(rotated);
  });

  it('gives deliveries the contacts and the token in plaintext', () => {
    monitoring.account.updateAccount('t1', { technical_contacts: ['ops@example.com'], webhook_token: 'DeliveryToken0123456789' });
    expect(monitoring.account.deliveryAccount('t1')).toEqual({ technicalContacts: ['ops@example.com'], webhookToken: 'DeliveryToken0123456789' });
    // A tenant never seen before gets its account made, so every webhook carries a token.
    expect(monitoring.account.deliveryAccount('t9')).toEqual({ technicalContacts: [], webhookToken: expect.stringMatching(GENERATED) });
  });

  it('never stores the token in plaintext; the contacts are plain', () => {
    const generated = monitoring.account.account('t1').webhookToken;
    const rotated = monitoring.account.rotateWebhookToken('t2').webhookToken;
    monitoring.account.updateAccount('t3', { webhook_token: 'ChosenByTheAdmin0123456789', technical_contacts: ['plain@example.com'] });
    monitoring.store.checkpoint();
    expect(storedToken(monitoring, 't3')).toMatch(/^enc:v1:/);
    expectNotOnDisk(dir, generated, rotated, 'ChosenByTheAdmin0123456789');
    const row = monitoring.store.db.prepare('SELECT technical_contacts FROM mon_account WHERE tenant = ?').get('t3') as { technical_contacts: string };
    expect(JSON.parse(row.technical_contacts)).toEqual(['plain@example.com']);
  });

  it("a token copied into another tenant's row does not decrypt, and setting a token repairs it", () => {
    monitoring.account.account('t1');
    monitoring.account.account('t2');
    monitoring.store.db.prepare('UPDATE mon_account SET webhook_token = ? WHERE tenant = ?').run(storedToken(monitoring, 't1'), 't2');
    expect(codeOf(() => monitoring.account.account('t2'))).toBe('MONITORING_SECRET_UNREADABLE');
    expect(codeOf(() => monitoring.account.deliveryAccount('t2'))).toBe('MONITORING_SECRET_UNREADABLE');
    monitoring.account.updateAccount('t2', { webhook_token: 'RepairedToken0123456789' });
    expect(monitoring.account.account('t2').webhookToken).toBe('RepairedToken0123456789');
  });

  it('with monitoring.key lost the token is unreadable until rotated', () => {
    monitoring.account.account('t1');
    monitoring.close();
    rmSync(join(dir, TOKEN_KEY_FILE_NAME));
    monitoring = openMonitoring({ dir, clock });
    expect(codeOf(() => monitoring.account.account('t1'))).toBe('MONITORING_SECRET_UNREADABLE');
    const rotated = monitoring.account.rotateWebhookToken('t1');
    expect(monitoring.account.account('t1').webhookToken).toBe(rotated.webhookToken);
  });
});
