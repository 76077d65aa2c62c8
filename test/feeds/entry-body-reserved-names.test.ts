// Checks that the entry readers turn reserved object names (__proto__, constructor, prototype) into FEED_ENTRY_INVALID, never a plain parser Error.
import { describe, expect, it } from 'vitest';
import { isStrataError } from '../../src/core/errors.js';
import { entryFromAtom, entryFromJson } from '../../src/feeds/entry-body.js';

const CRITICAL = ['__proto__', 'constructor', 'prototype'] as const;

/** The code of what `read` throws, or 'none'; a thrown value that is not a StrataError fails the test. */
function codeOf(read: () => unknown): string {
  try {
    read();
    return 'none';
  } catch (error) {
    expect(isStrataError(error), String(error)).toBe(true);
    return (error as { code: string }).code;
  }
}

describe('entryFromAtom', () => {
  it.each(CRITICAL)('an element named %s anywhere is FEED_ENTRY_INVALID naming it', (name) => {
    for (const xml of [
      `<entry><title>t</title><${name}>x</${name}></entry>`,
      `<${name}><title>t</title></${name}>`,
      `<entry><title>t</title><a:${name} xmlns:a="urn:a"/></entry>`,
    ]) {
      expect(codeOf(() => entryFromAtom(xml))).toBe('FEED_ENTRY_INVALID');
      expect(() => entryFromAtom(xml)).toThrow(`"${name}"`);
    }
  });

  it.each(CRITICAL)('%s as text and as an attribute name is data', (name) => {
    expect(entryFromAtom(`<entry ${name}="x"><title ${name}="y">${name}</title><category term="${name}"/></entry>`)).toEqual({ title: name, categories: [name] });
  });
});

describe('entryFromJson', () => {
  it.each([
    '{"__proto__":{},"entry":{"title":"t"}}',
    '{"entry":{"title":"t","__proto__":"x"}}',
    '{"entry":{"title":"t","category":[{"term":"a","__proto__":{"term":"b"}}]}}',
    '{"entry":{"title":"t","constructor":{"prototype":{}}}}',
  ])('%s is FEED_ENTRY_INVALID', (text) => {
    expect(codeOf(() => entryFromJson(text))).toBe('FEED_ENTRY_INVALID');
  });

  it('constructor without a prototype is an ignored unknown key; reserved names as values are data', () => {
    expect(entryFromJson('{"entry":{"title":"constructor","constructor":"x","category":[{"term":"__proto__"}]}}')).toEqual({ title: 'constructor', categories: ['__proto__'] });
  });
});
