// Checks each notification parameter rule of spec 2.5 with values just inside and just outside it.
import { describe, expect, it } from 'vitest';
import { isStrataError } from '../../src/core/errors.js';
import { notificationDetails } from '../../src/monitoring/notification-details.js';
import { parseNotification } from '../../src/monitoring/notification-rules.js';
import type { NotificationTypeId } from '../../src/monitoring/notification-types.js';

/** The key a validation error names, or 'ok' when the details pass. */
function verdict(type: NotificationTypeId, details: unknown): string {
  try {
    notificationDetails(type, details);
    return 'ok';
  } catch (error) {
    if (isStrataError(error) && error.code === 'MONITORING_FIELD_INVALID') return String(error.details['key']);
    throw error;
  }
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
  });

  it('webhook url: http or https only, with a host', () => {
    expect(verdict('webhook', { url: 'http://h' })).toBe('ok');
    expect(verdict('webhook', { url: 'https://hooks.example.com:8443/a?b=c' })).toBe('ok');
    expect(verdict('webhook', { url: 'ftp://h' })).toBe('details.url');
    expect(verdict('webhook', { url: 'https://' })).toBe('details.url');
    expect(verdict('webhook', { url: 'hooks.example.com' })).toBe('details.url');
    expect(verdict('webhook', { url: 'https://a b.com' })).toBe('details.url');
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
    expect(parseNotification({ label: 'l', type: 'sms', details: { phone_number: '+15551234567' } })).toMatchObject({ type: 'sms', metadata: null });
    const key = (body: unknown) => {
      try {
        parseNotification(body);
        return 'ok';
      } catch (error) {
        return isStrataError(error) ? String(error.details['key']) : 'thrown';
      }
    };
    expect(key({ label: 'l', type: 'pagerduty', details: {} })).toBe('type');
    expect(key({ type: 'managed' })).toBe('label');
    expect(key({ label: 'l' })).toBe('type');
  });
});
