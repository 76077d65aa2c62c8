// Checks choosing the answer's media type from Accept preferences.
import { describe, expect, it } from 'vitest';
import { preferredType } from '../../src/http/media-choice.js';

const DNS: [string, ...string[]] = ['application/json', 'application/xml'];
const FEEDS: [string, ...string[]] = ['application/atom+xml', 'application/xml', 'application/json', 'application/vnd.rackspace.atom+json'];

describe('preferredType', () => {
  it('answers the first offered type when Accept is absent, empty or a wildcard', () => {
    expect(preferredType(undefined, DNS)).toBe('application/json');
    expect(preferredType('', FEEDS)).toBe('application/atom+xml');
    expect(preferredType('*/*', FEEDS)).toBe('application/atom+xml');
  });

  it('follows exact types and q values, the most specific entry deciding', () => {
    expect(preferredType('application/xml', DNS)).toBe('application/xml');
    expect(preferredType('application/json;q=0.5, application/xml', DNS)).toBe('application/xml');
    expect(preferredType('application/*;q=0.2, application/json;q=0.9', DNS)).toBe('application/json');
    expect(preferredType('application/vnd.rackspace.atom+json', FEEDS)).toBe('application/vnd.rackspace.atom+json');
    expect(preferredType('text/html, application/json;q=0.9, */*;q=0.8', FEEDS)).toBe('application/json');
    expect(preferredType('application/xml;q=0, */*', DNS)).toBe('application/json');
  });
});
