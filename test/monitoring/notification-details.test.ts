// Checks each notification parameter rule of spec 2.5 with values just inside and just outside it, as the API judges a body (schema, then rules).
import { describe, expect, it } from 'vitest';
import { notificationDoc, planDoc } from '../../src/monitoring/notification-rules.js';
import type { NotificationTypeId } from '../../src/monitoring/notification-types.js';
import { MONITORING_BODY_SCHEMAS } from '../../src/monitoring/schemas/monitoring-body-schemas.js';
import type { NotificationCreate, NotificationUpdate } from '../../src/monitoring/schemas/notification-schema.js';
import type { PlanCreate } from '../../src/monitoring/schemas/plan-schema.js';
import { bodyKey } from './body-verdict.js';

/** The key the API names for a notification create body, or 'ok'. */
const createKey = (body: unknown) => bodyKey<NotificationCreate>(MONITORING_BODY_SCHEMAS.notification.create, body, (input) => notificationDoc(input));

/** The key a notification of `type` with `details` (left out when undefined) is refused with, or 'ok' when they pass. */
function verdict(type: NotificationTypeId, details: unknown): string {
  return createKey(details === undefined ? { label: 'l', type } : { label: 'l', type, details });
}

const UUID4 = '0f8fad5b-d9cb-469f-a165-70867728950e';

describe('notification details (spec 2.5)', () => {
  it('email address: an address, at most 254 characters', () => {
    expect(verdict('email', { address: 'a@b.co' })).toBe('ok');
    expect(verdict('email', { address: `${'a'.repeat(248)}@b.com` })).toBe('ok');
    expect(verdict('email', { address: `${'a'.repeat(249)}@b.com` })).toBe('details.address');
    expect(verdict('email', { address: 'a@b' })).toBe('details.address');
    expect(verdict('email', { address: 'a b@c.com' })).toBe('details.address');
    expect(verdict('email', { address: '@b.com' })).toBe('details.address');
    expect(verdict('email', {})).toBe('details.address');
    expect(verdict('email', undefined)).toBe('details.address');
    expect(verdict('email', null)).toBe('details.address');
  });

  it('webhook url: http or https only, with a host', () => {
    expect(verdict('webhook', { url: 'http://h' })).toBe('ok');
    expect(verdict('webhook', { url: 'https://hooks.example.com:8443/a?b=c' })).toBe('ok');
    expect(verdict('webhook', { url: 'HTTPS://[2001:db8::1]/hook' })).toBe('ok');
    expect(verdict('webhook', { url: 'ftp://h' })).toBe('details.url');
    expect(verdict('webhook', { url: 'https://' })).toBe('details.url');
    expect(verdict('webhook', { url: 'hooks.example.com' })).toBe('details.url');
    expect(verdict('webhook', { url: 'https://a b.com' })).toBe('details.url');
    expect(verdict('webhook', { url: `https://h/${'p'.repeat(1024)}` })).toBe('details.url');
    expect(verdict('webhook', {})).toBe('details.url');
  });

  it('incidentA service_key: 1 to 32 letters or digits; service_endpoint optional, a URL', () => {
    expect(verdict('incidentA', { service_key: 'a' })).toBe('ok');
    expect(verdict('incidentA', { service_key: 'A1'.repeat(16) })).toBe('ok');
    expect(verdict('incidentA', { service_key: 'A1'.repeat(16) + 'x' })).toBe('details.service_key');
    expect(verdict('incidentA', { service_key: '' })).toBe('details.service_key');
    expect(verdict('incidentA', { service_key: 'abc-def' })).toBe('details.service_key');
    expect(verdict('incidentA', {})).toBe('details.service_key');
    expect(verdict('incidentA', { service_key: 'k', service_endpoint: 'https://events.example.com/v1' })).toBe('ok');
    expect(verdict('incidentA', { service_key: 'k', service_endpoint: 'not a url' })).toBe('details.service_endpoint');
  });

  it('sms phone_number: + then 6 to 15 digits', () => {
    expect(verdict('sms', { phone_number: '+123456' })).toBe('ok');
    expect(verdict('sms', { phone_number: '+123456789012345' })).toBe('ok');
    expect(verdict('sms', { phone_number: '+12345' })).toBe('details.phone_number');
    expect(verdict('sms', { phone_number: '+1234567890123456' })).toBe('details.phone_number');
    expect(verdict('sms', { phone_number: '1234567' })).toBe('details.phone_number');
    expect(verdict('sms', { phone_number: '+1234567a' })).toBe('details.phone_number');
    expect(verdict('sms', { phone_number: 15551234567 })).toBe('details.phone_number');
  });

  it('incidentB api_key: a UUID v4; routing_key optional, letters, digits, _ . -', () => {
    expect(verdict('incidentB', { api_key: UUID4 })).toBe('ok');
    expect(verdict('incidentB', { api_key: UUID4.toUpperCase() })).toBe('ok');
    expect(verdict('incidentB', { api_key: UUID4.replace('469f', '169f') })).toBe('details.api_key');
    expect(verdict('incidentB', { api_key: UUID4.replace('a165', 'c165') })).toBe('details.api_key');
    expect(verdict('incidentB', { api_key: UUID4.slice(0, -1) })).toBe('details.api_key');
    expect(verdict('incidentB', {})).toBe('details.api_key');
    expect(verdict('incidentB', { api_key: UUID4, routing_key: 'a' })).toBe('ok');
    expect(verdict('incidentB', { api_key: UUID4, routing_key: 'team_a.b-c' })).toBe('ok');
    expect(verdict('incidentB', { api_key: UUID4, routing_key: '' })).toBe('details.routing_key');
    expect(verdict('incidentB', { api_key: UUID4, routing_key: 'team a' })).toBe('details.routing_key');
    expect(verdict('incidentB', { api_key: UUID4, routing_key: 'team/a' })).toBe('details.routing_key');
  });

  it('eventFeed category: required, any non-empty string', () => {
    expect(verdict('eventFeed', { category: 'x' })).toBe('ok');
    expect(verdict('eventFeed', { category: '' })).toBe('details.category');
    expect(verdict('eventFeed', {})).toBe('details.category');
  });

  it('managed and technicalContactsEmail take no parameters', () => {
    expect(verdict('managed', {})).toBe('ok');
    expect(verdict('managed', undefined)).toBe('ok');
    expect(verdict('technicalContactsEmail', {})).toBe('ok');
    expect(verdict('managed', { address: 'a@b.co' })).toBe('details.address');
    expect(verdict('technicalContactsEmail', { x: 1 })).toBe('details.x');
  });

  it('refuses parameters of other types and non-object details', () => {
    expect(verdict('email', { address: 'a@b.co', url: 'https://x' })).toBe('details.url');
    expect(verdict('email', 'a@b.co')).toBe('details');
    expect(verdict('email', [])).toBe('details');
  });

  it('parses a notification body: type and label required, unknown type refused', () => {
    expect(notificationDoc({ label: 'l', type: 'sms', details: { phone_number: '+15551234567' } })).toMatchObject({ type: 'sms', metadata: null });
    expect(createKey({ label: 'l', type: 'pagerduty', details: {} })).toBe('type');
    expect(createKey({ type: 'managed' })).toBe('label');
    expect(createKey({ label: 'l' })).toBe('type');
    expect(createKey({ label: 'l', type: 'managed', colour: 'red' })).toBe('colour');
    expect(createKey(null)).toBe('body');
  });

  it('an update keeps the details while the type stays; a new type needs its own', () => {
    const hook = notificationDoc({ label: 'hook', type: 'webhook', details: { url: 'https://hooks.example.com/x' } });
    const updateKey = (body: unknown) => bodyKey<NotificationUpdate>(MONITORING_BODY_SCHEMAS.notification.update, body, (input) => notificationDoc(input, hook));
    expect(updateKey({ type: 'sms' })).toBe('details.phone_number');
    expect(updateKey({ type: 'sms', details: { phone_number: '+15551234567' } })).toBe('ok');
    expect(updateKey({ details: { url: 'https://hooks.example.com/y' } })).toBe('type');
    expect(updateKey({ type: 'webhook', details: { url: 'ftp://x' } })).toBe('details.url');
    expect(updateKey({ type: 'managed' })).toBe('ok');
    expect(notificationDoc({ label: 'renamed' }, hook)).toEqual({ ...hook, label: 'renamed' });
    expect(notificationDoc({ type: 'webhook', details: null }, hook)).toEqual(hook);
    expect(notificationDoc({ type: 'managed' }, hook).details).toEqual({});
  });
});

describe('notification plan bodies', () => {
  const planKey = (body: unknown) => bodyKey<PlanCreate>(MONITORING_BODY_SCHEMAS.plan.create, body, (input) => planDoc(input));

  it('lists hold at most 64 notification ids; repeats count once; null is none', () => {
    const ids = (n: number) => Array.from({ length: n }, (_, i) => `nt${i}`);
    expect(planKey({ label: 'p', critical_state: ids(64) })).toBe('ok');
    expect(planKey({ label: 'p', critical_state: ids(65) })).toBe('critical_state');
    expect(planKey({ label: 'p', warning_state: [''] })).toBe('warning_state');
    expect(planKey({ label: 'p', ok_state: 'ntA' })).toBe('ok_state');
    expect(planKey({ critical_state: [] })).toBe('label');
    expect(planDoc({ label: 'p', critical_state: ['ntA', 'ntA'], warning_state: null })).toEqual({ label: 'p', critical_state: ['ntA'], warning_state: [], ok_state: [], metadata: null });
    const stored = planDoc({ label: 'p', ok_state: ['ntA'] });
    expect(planDoc({ warning_state: ['ntB'] }, stored)).toEqual({ ...stored, warning_state: ['ntB'] });
  });
});
