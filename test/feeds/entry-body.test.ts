// Checks reading published entries from Atom and JSON bodies.
import { describe, expect, it } from 'vitest';
import { entryFromAtom, entryFromJson } from '../../src/feeds/entry-body.js';

const invalid = expect.objectContaining({ code: 'FEED_ENTRY_INVALID' });

describe('entryFromAtom', () => {
  it('reads title, category terms and text content, with the Atom namespace as default or prefix', () => {
    const plain = '<entry xmlns="http://www.w3.org/2005/Atom"><title type="text">Disk &amp; CPU</title><category term="a"/><category term="b"/><content>1e3</content></entry>';
    expect(entryFromAtom(plain)).toEqual({ title: 'Disk & CPU', categories: ['a', 'b'], content: { type: 'text', text: '1e3' } });
    const prefixed = '<atom:entry xmlns:atom="http://www.w3.org/2005/Atom"><atom:title>t</atom:title></atom:entry>';
    expect(entryFromAtom(prefixed)).toEqual({ title: 't', categories: [] });
  });

  it('decodes Base64 content of non-text media types', () => {
    const body = `<entry><title>t</title><content type="application/json">${Buffer.from('{"a":1}').toString('base64')}</content></entry>`;
    expect(entryFromAtom(body).content).toEqual({ type: 'application/json', text: '{"a":1}' });
  });

  it.each([
    ['malformed XML', '<entry><title>t</entry>'],
    ['a DOCTYPE', '<!DOCTYPE entry><entry><title>t</title></entry>'],
    ['another root', '<feed><title>t</title></feed>'],
    ['no title', '<entry><category term="a"/></entry>'],
    ['XML content', '<entry><title>t</title><content type="text"><b>x</b></content></entry>'],
    ['content that is not Base64', '<entry><title>t</title><content type="application/json">{"a":1}</content></entry>'],
  ])('refuses %s', (_name, body) => {
    expect(() => entryFromAtom(body)).toThrow(invalid);
  });
});

describe('entryFromJson', () => {
  it('reads the reference JSON form and plain strings', () => {
    expect(entryFromJson('{"entry":{"title":{"@text":"t"},"category":[{"term":"a"}],"content":{"type":"application/json","@text":"{}"}}}')).toEqual({
      title: 't',
      categories: ['a'],
      content: { type: 'application/json', text: '{}' },
    });
    expect(entryFromJson('{"entry":{"title":"t","content":"hello"}}')).toEqual({ title: 't', categories: [], content: { type: 'text', text: 'hello' } });
  });

  it.each([['not JSON', '{'], ['no entry', '{"title":"t"}'], ['a numeric title', '{"entry":{"title":5}}'], ['categories not a list', '{"entry":{"title":"t","category":"a"}}']])(
    'refuses %s',
    (_name, body) => {
      expect(() => entryFromJson(body)).toThrow(invalid);
    },
  );
});
