// Properties of the account rules: the update schema admits exactly the valid tokens and contact lists, generated tokens are valid, ids are stable, and materializing the defaults is idempotent.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { accountIdOf, contactsOf, isWebhookToken, newWebhookToken } from '../../../src/monitoring/account/account-rules.js';
import { ACCOUNT_UPDATE_SCHEMA } from '../../../src/monitoring/account/account-schema.js';
import { DEFAULT_NOTIFICATION_DOC, DEFAULT_NOTIFICATION_ID, DEFAULT_PLAN_DOC, DEFAULT_PLAN_ID } from '../../../src/monitoring/account/default-objects.js';
import { ACCOUNT_TECHNICAL_CONTACTS_MAX, WEBHOOK_TOKEN_LENGTH_MAX, WEBHOOK_TOKEN_LENGTH_MIN } from '../../../src/monitoring/monitoring-limits.js';
import { openMonitoring, type MonitoringService } from '../../../src/monitoring/monitoring-service.js';
import { schemaError, validatorOf } from '../body-verdict.js';

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** The token rule written out without a regular expression: the length bounds, then every character a letter or digit. */
function tokenRule(token: string): boolean {
  return token.length >= WEBHOOK_TOKEN_LENGTH_MIN && token.length <= WEBHOOK_TOKEN_LENGTH_MAX && [...token].every((c) => ALNUM.includes(c));
}

const alnumString = (max: number): fc.Arbitrary<string> => fc.string({ unit: fc.constantFrom(...ALNUM), maxLength: max });
/** Strings near the token rule: letters and digits of every length around the bounds, some with one other character in them. */
const tokenCandidate = fc.oneof(
  alnumString(WEBHOOK_TOKEN_LENGTH_MAX + 8),
  fc.tuple(alnumString(40), fc.constantFrom('-', '_', ' ', '.', 'é', '\n', '+', '/'), alnumString(40)).map(([a, c, b]) => `${a}${c}${b}`),
  fc.string({ maxLength: 80 }),
);
const label = fc.string({ unit: fc.constantFrom(...'abcxyz019-_'), minLength: 1, maxLength: 12 }).filter((s) => !s.startsWith('.') && !s.endsWith('.'));
const email = fc.tuple(label, label, fc.constantFrom('com', 'org', 'example')).map(([local, domain, tld]) => `${local}@${domain}.${tld}`);
const notEmail = fc.constantFrom('plain', 'two@@example.com', 'space in@example.com', 'nodot@example', '@example.com', 'a@.com', '');

describe('account rules', () => {
  it('the update schema compiles strictly, admits its examples and refuses unknown keys by name', () => {
    expect(() => validatorOf(ACCOUNT_UPDATE_SCHEMA)).not.toThrow();
    for (const example of ACCOUNT_UPDATE_SCHEMA.examples ?? []) expect(schemaError(ACCOUNT_UPDATE_SCHEMA, example)).toBeUndefined();
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 12 }).filter((k) => !Object.hasOwn(ACCOUNT_UPDATE_SCHEMA.properties ?? {}, k) && k !== '__proto__'), (key) => {
        expect(schemaError(ACCOUNT_UPDATE_SCHEMA, { [key]: 'x' })?.details).toMatchObject({ key, problem: 'unknown key' });
      }),
    );
  });

  it('admits a webhook_token exactly when it is 16 to 64 letters or digits', () => {
    fc.assert(
      fc.property(tokenCandidate, (token) => {
        const error = schemaError(ACCOUNT_UPDATE_SCHEMA, { webhook_token: token });
        expect(error === undefined).toBe(tokenRule(token));
        expect(isWebhookToken(token)).toBe(tokenRule(token));
        if (error !== undefined) expect(error.details['key']).toBe('webhook_token');
      }),
      { numRuns: 500 },
    );
  });

  it('generates valid, distinct tokens', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const token = newWebhookToken();
      expect(token).toHaveLength(32);
      expect(tokenRule(token)).toBe(true);
      seen.add(token);
    }
    expect(seen.size).toBe(200);
  });

  it('admits contact lists of valid addresses up to the limit and names technical_contacts otherwise', () => {
    fc.assert(
      fc.property(fc.array(email, { maxLength: ACCOUNT_TECHNICAL_CONTACTS_MAX + 4 }), fc.option(notEmail, { nil: undefined }), fc.nat(), (emails, bad, at) => {
        const contacts = bad === undefined ? emails : [...emails.slice(0, at % (emails.length + 1)), bad, ...emails.slice(at % (emails.length + 1))];
        const valid = bad === undefined && contacts.length <= ACCOUNT_TECHNICAL_CONTACTS_MAX;
        const error = schemaError(ACCOUNT_UPDATE_SCHEMA, { technical_contacts: contacts });
        expect(error === undefined).toBe(valid);
        if (error !== undefined) expect(error.details['key']).toBe('technical_contacts');
      }),
      { numRuns: 300 },
    );
  });

  it('stores contacts once each, first occurrence first, and a stored list unchanged', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('a@x.io', 'b@x.io', 'c@x.io', 'A@x.io'), { maxLength: 12 }), (given) => {
        const stored = contactsOf(given);
        expect(new Set(stored)).toEqual(new Set(given));
        expect(stored.length).toBe(new Set(given).size);
        expect(stored).toEqual(given.filter((c, i) => given.indexOf(c) === i));
        expect(contactsOf(stored)).toEqual(stored);
      }),
    );
  });

  it('derives one account id per tenant, of the id form', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...`${ALNUM}._-`), minLength: 1, maxLength: 128 }), (tenant) => {
        const id = accountIdOf(tenant);
        expect(id).toMatch(/^ac[A-Za-z0-9]{8}$/);
        expect(accountIdOf(tenant)).toBe(id);
      }),
    );
  });
});

/** One operation that touches a tenant's notifications or plans, as a client (or the alarm rules) would. */
type Step = { readonly tenant: 't1' | 't2'; readonly op: 'ensure' | 'listN' | 'listP' | 'createN' | 'createP' | 'readP' | 'badAlarm' | 'reopen' | 'tick' };

const step: fc.Arbitrary<Step> = fc.record({
  tenant: fc.constantFrom('t1' as const, 't2' as const),
  op: fc.constantFrom('ensure' as const, 'listN' as const, 'listP' as const, 'createN' as const, 'createP' as const, 'readP' as const, 'badAlarm' as const, 'reopen' as const, 'tick' as const),
});

/** Runs one step; a bad alarm fails inside its transaction after materializing the defaults there. */
function run(m: MonitoringService, s: Step, clock: ManualClock): void {
  const n = m.notifications;
  if (s.op === 'ensure') n.ensureDefaults(s.tenant);
  else if (s.op === 'listN') n.listNotifications(s.tenant, { limit: 1000 });
  else if (s.op === 'listP') n.listPlans(s.tenant, { limit: 1000 });
  else if (s.op === 'createN') n.createNotification(s.tenant, { label: 'n', type: 'managed' });
  else if (s.op === 'createP') n.createPlan(s.tenant, { label: 'p', warning_state: [DEFAULT_NOTIFICATION_ID] });
  else if (s.op === 'readP') n.plan(s.tenant, DEFAULT_PLAN_ID);
  else if (s.op === 'tick') clock.advance(1);
  else if (s.op === 'badAlarm') {
    const entity = m.entities.createEntity(s.tenant, { label: 'e' });
    const check = m.entities.createCheck(s.tenant, entity, { type: 'agent.cpu' });
    expect(() => m.entities.createAlarm(s.tenant, entity, { check_id: check, notification_plan_id: 'npMissing' })).toThrow();
  }
}

describe('default objects', () => {
  it('any sequence of operations leaves each touched tenant exactly one default of each kind, as first written', () => {
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 25 }), (steps) => {
        const dir = mkdtempSync(join(tmpdir(), 'strata-defaults-prop-'));
        const clock = new ManualClock(1_000);
        let m = openMonitoring({ dir, clock });
        // When each tenant's defaults were first committed; a failed alarm's rollback commits nothing.
        const firstWrite = new Map<string, number>();
        try {
          for (const s of steps) {
            if (s.op === 'reopen') {
              m.close();
              m = openMonitoring({ dir, clock });
              continue;
            }
            run(m, s, clock);
            if (s.op !== 'tick' && s.op !== 'badAlarm' && !firstWrite.has(s.tenant)) firstWrite.set(s.tenant, clock.now());
            for (const tenant of ['t1', 't2']) {
              const rows = m.store.db.prepare('SELECT id, doc, created_ms AS createdMs FROM mon_notification WHERE tenant = ? AND id = ? UNION ALL SELECT id, doc, created_ms FROM mon_plan WHERE tenant = ? AND id = ?');
              const found = rows.all(tenant, DEFAULT_NOTIFICATION_ID, tenant, DEFAULT_PLAN_ID) as { id: string; doc: string; createdMs: number }[];
              const atMs = firstWrite.get(tenant);
              const expected =
                atMs === undefined
                  ? []
                  : [
                      { id: DEFAULT_NOTIFICATION_ID, doc: DEFAULT_NOTIFICATION_DOC, createdMs: atMs },
                      { id: DEFAULT_PLAN_ID, doc: DEFAULT_PLAN_DOC, createdMs: atMs },
                    ];
              expect(found.map((r) => ({ ...r, doc: JSON.parse(r.doc) as unknown }))).toEqual(expected);
              // Every plan of the tenant names the default notification (the default plan, and each createP): members are recorded for all.
              expect(m.store.docs.plansNaming(tenant, DEFAULT_NOTIFICATION_ID)).toBe(m.store.docs.count('mon_plan', { tenant }));
            }
          }
        } finally {
          m.close();
          rmSync(dir, { recursive: true, force: true });
        }
      }),
      { numRuns: 40 },
    );
  });
});
