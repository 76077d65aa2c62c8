// Property tests of the agent configuration parsers: the reference `key value` file format and endpoint lists.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { StrataError } from '../../../src/core/errors.js';
import {
  AGENT_CONFIG_KEYS,
  formatAgentConfigFile,
  formatEndpoint,
  parseAgentConfigFile,
  parseEndpoints,
  type AgentConfigKey,
  type EndpointAddress,
} from '../../../src/agent/client/agent-config.js';

/** A value as the format carries it: one line, no blanks at either end (they are not part of a value). */
const value = fc.string({ maxLength: 40 }).map((text) => text.trim());
const values = fc.dictionary(fc.constantFrom(...AGENT_CONFIG_KEYS), value) as fc.Arbitrary<Partial<Record<AgentConfigKey, string>>>;
const blank = fc.constantFrom(' ', '\t', '  ', ' \t');

function expectConfigInvalidOrValue(run: () => unknown): void {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(StrataError);
    expect((error as StrataError).code).toBe('CONFIG_INVALID');
  }
}

describe('parseAgentConfigFile', () => {
  it('reads back what formatAgentConfigFile writes', () => {
    fc.assert(
      fc.property(values, (written) => {
        expect(parseAgentConfigFile(formatAgentConfigFile(written))).toEqual({ values: written, ignored: [] });
      }),
    );
  });

  it('is not changed by comments, blank lines, indentation, blanks between key and value, or CRLF line ends', () => {
    const line = fc.tuple(fc.constantFrom(...AGENT_CONFIG_KEYS), value, blank, fc.constantFrom('', ' ', '\t'), fc.constantFrom('', ' ', '\t'));
    const noise = fc.oneof(fc.constant(''), fc.constant('   '), value.map((text) => `# ${text}`), value.map((text) => `\t#${text}`));
    fc.assert(
      fc.property(fc.uniqueArray(line, { selector: ([key]) => key }), fc.array(noise, { maxLength: 10 }), fc.constantFrom('\n', '\r\n'), (lines, comments, eol) => {
        const expected = Object.fromEntries(lines.map(([key, text]) => [key, text]));
        const body = lines.map(([key, text, between, indent, trailing]) => `${indent}${key}${text === '' ? '' : between + text}${trailing}`);
        const mixed = [...comments.slice(0, 5), ...body.flatMap((entry, i) => [entry, comments[5 + i] ?? ''])];
        expect(parseAgentConfigFile(mixed.join(eol)).values).toEqual(expected);
      }),
    );
  });

  it('takes the last line of a repeated key, as the reference agent does', () => {
    fc.assert(
      fc.property(fc.constantFrom(...AGENT_CONFIG_KEYS), fc.array(value, { minLength: 1, maxLength: 5 }), (key, texts) => {
        const text = texts.map((entry) => `${key} ${entry}\n`).join('');
        expect(parseAgentConfigFile(text).values[key]).toBe(texts[texts.length - 1]);
      }),
    );
  });

  it('either parses any text or refuses it with CONFIG_INVALID', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (text) => {
        expectConfigInvalidOrValue(() => parseAgentConfigFile(text));
      }),
    );
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom(...AGENT_CONFIG_KEYS, 'monitoring_debug', 'bogus', '#x', ''), fc.string({ maxLength: 20 })), { maxLength: 8 }), (entries) => {
        expectConfigInvalidOrValue(() => parseAgentConfigFile(entries.map(([k, v]) => `${k} ${v}`).join('\n')));
      }),
    );
  });
});

const endpoint: fc.Arbitrary<EndpointAddress> = fc.record({
  host: fc.oneof(fc.domain(), fc.ipV4(), fc.ipV6()),
  port: fc.integer({ min: 1, max: 65_535 }),
});

describe('parseEndpoints', () => {
  it('reads back formatted endpoint lists, blanks around commas allowed', () => {
    fc.assert(
      fc.property(fc.uniqueArray(endpoint, { minLength: 1, maxLength: 16, selector: (e) => formatEndpoint(e).toLowerCase() }), fc.constantFrom(',', ', ', ' ,'), (list, separator) => {
        expect(parseEndpoints(list.map(formatEndpoint).join(separator))).toEqual(list);
      }),
    );
  });

  it('refuses a port outside 1..65535', () => {
    fc.assert(
      fc.property(fc.oneof(fc.constant(0), fc.integer({ min: 65_536, max: 10_000_000 })), fc.ipV4(), (port, host) => {
        expect(() => parseEndpoints(`${host}:${port}`)).toThrow(/monitoring_endpoints/);
      }),
    );
  });

  it('either parses any text or refuses it with CONFIG_INVALID', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (text) => {
        expectConfigInvalidOrValue(() => parseEndpoints(text));
      }),
    );
  });
});
