// Owns the example tests of ProtoReader that pin fixed bugs (its properties are in proto-reader.property.test.ts).
import { describe, expect, it } from 'vitest';
import { ProtoReader } from '../../src/wire/proto-reader.js';
import { ProtoWriter } from '../../src/wire/proto-writer.js';

describe('ProtoReader.string', () => {
  it('keeps a leading U+FEFF: a string field is text, not a file whose byte order mark may be dropped', () => {
    const body = new ProtoWriter().tag(1, 2).string('\uFEFFk').tag(2, 2).string('\uFEFF').finish();
    const reader = new ProtoReader(body);
    const strings: string[] = [];
    while (reader.next(body.length)) strings.push(reader.string());
    expect(strings).toEqual(['\uFEFFk', '\uFEFF']);
  });
});
