// Property and table tests of the one rule naming credentials in check and notification details: spelling-insensitive, substring-based, and which notification details it makes secret.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isSecretDetailName, normalizedSecretName, REDACTED_SECRET, urlHoldsPassword, urlWithoutPassword } from '../../src/monitoring/detail-secrets.js';
import { isSecretNotificationDetail } from '../../src/monitoring/notification-secrets.js';
import { NOTIFICATION_TYPE_IDS, notificationType } from '../../src/monitoring/notification-types.js';

const PARTS = ['password', 'passwd', 'passphrase', 'secret', 'token', 'apikey', 'accesskey', 'privatekey', 'credential', 'servicekey', 'integrationkey'];
/** A name's characters re-spelt: any case, with '-', '_' or blanks between any two. */
const respelt = (name: string) =>
  fc.array(fc.tuple(fc.boolean(), fc.constantFrom('', '', '-', '_', ' ')), { minLength: name.length, maxLength: name.length }).map((choices) =>
    [...name].map((char, i) => { const [upper, sep] = choices[i] ?? [false, '']; return `${upper ? char.toUpperCase() : char}${i > 0 ? sep : ''}`; }).join(''),
  );
const word = fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz_-'.split('')), maxLength: 12 });

describe('the credential name rule', () => {
  it('ignores case, dashes, underscores and blanks', () => {
    const named = fc.tuple(word, fc.constantFrom(...PARTS, 'url', 'routing_key', 'pass')).map(([prefix, name]) => `${prefix}${name}`);
    fc.assert(
      fc.property(named.chain((name) => fc.tuple(fc.constant(name), respelt(name))), ([name, spelt]) => {
        expect(isSecretDetailName(spelt)).toBe(isSecretDetailName(name));
      }),
    );
  });

  it('makes any name holding a credential part a secret, whatever surrounds it', () => {
    fc.assert(
      fc.property(word, fc.constantFrom(...PARTS), word, (before, part, after) => {
        expect(isSecretDetailName(`${before}${part}${after}`)).toBe(true);
      }),
    );
  });

  it('leaves names from letters no part can form alone (a..h and x..z)', () => {
    fc.assert(fc.property(fc.string({ unit: fc.constantFrom(...'abcdefghxyz_-'.split('')), maxLength: 20 }), (name) => {
      fc.pre(!['pass', 'pwd'].includes(normalizedSecretName(name)));
      expect(isSecretDetailName(name)).toBe(false);
    }));
  });

  it('masks only the password of a URL user-info', () => {
    fc.assert(fc.property(fc.webUrl(), fc.stringMatching(/^[a-z0-9]{1,8}$/), fc.stringMatching(/^[A-Za-z0-9]{1,12}$/), (url, user, password) => {
      const withPassword = url.replace('://', `://${user}:${password}@`);
      fc.pre(!url.includes('@'));
      expect(urlHoldsPassword(url)).toBe(false);
      expect(urlHoldsPassword(withPassword)).toBe(true);
      expect(urlWithoutPassword(withPassword)).toBe(url.replace('://', `://${user}:${REDACTED_SECRET}@`));
    }));
  });
});

describe('which notification details are secrets', () => {
  const SECRETS = ['incidentA.service_key', 'incidentB.api_key', 'webhook.url'];
  const fields = NOTIFICATION_TYPE_IDS.flatMap((type) => (notificationType(type)?.fields ?? []).map((field) => ({ type, name: field.name })));

  it.each(fields.map((field) => [`${field.type}.${field.name}`, field] as const))('%s', (_label, { type, name }) => {
    expect(isSecretNotificationDetail(type, name)).toBe(SECRETS.includes(`${type}.${name}`));
  });

  it('a webhook url is a secret as a whole; a url of another type follows the name rule', () => {
    expect(isSecretNotificationDetail('webhook', 'url')).toBe(true);
    expect(isSecretNotificationDetail('incidentA', 'url')).toBe(false);
    expect(isSecretNotificationDetail('incidentA', 'service_endpoint')).toBe(false);
  });
});
