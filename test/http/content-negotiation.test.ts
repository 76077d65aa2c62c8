// Tests media type matching and the sorting of URLs into API families.
import { describe, expect, it } from 'vitest';
import { acceptAllows, essence } from '../../src/http/content-negotiation.js';
import { familyOf } from '../../src/http/api-family.js';

describe('media types', () => {
  it('takes the essence of a media type', () => {
    expect(essence('Application/JSON; charset=utf-8')).toBe('application/json');
  });

  it('allows JSON for absent, wildcard and JSON Accept headers, and refuses others', () => {
    const json = ['application/json'];
    for (const accept of [undefined, '', '*/*', 'application/json', 'application/*', 'text/html, application/json;q=0.1', 'APPLICATION/JSON']) {
      expect(acceptAllows(accept, json)).toBe(true);
    }
    for (const accept of ['text/html', 'application/xml', 'application/json;q=0', 'text/*']) {
      expect(acceptAllows(accept, json)).toBe(false);
    }
  });
});

describe('API families', () => {
  it('sorts URLs into API families', () => {
    expect(familyOf('/v2.0/tokens')).toBe('identity');
    expect(familyOf('/ingest/v2.0/t/ingest')).toBe('ingest');
    expect(familyOf('/metrics/v2.0/t/views/x')).toBe('metrics');
    expect(familyOf('/monitoring/v1.0/t/entities')).toBe('metrics');
    expect(familyOf('/feeds/t/usagesummary')).toBe('feeds');
    expect(familyOf('/feeds')).toBe('feeds');
    expect(familyOf('/feedsx/t')).toBe('metrics');
    expect(familyOf('/dns/v1.0/t/domains?limit=1')).toBe('dns');
    expect(familyOf('/v2.0?x=1')).toBe('identity');
  });
});
