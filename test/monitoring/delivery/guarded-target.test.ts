// Tests guarded delivery requests against a real receiver with a scripted resolver: the guard judges the resolved address, and the connection goes to that address only.
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { guardedPost } from '../../../src/monitoring/delivery/guarded-target.js';
import { AddressGuard } from '../../../src/monitoring/probes/address-guard.js';
import { startReceiver, type WebhookReceiver } from './webhook-receiver.js';

/** Answers of the scripted resolver, by host name; other names go to the real resolver. */
const answers = new Map<string, string[]>();
const lookups: string[] = [];

vi.mock('node:dns/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:dns/promises')>();
  const lookup = async (host: string, options: unknown): Promise<unknown> => {
    lookups.push(host);
    const scripted = answers.get(host);
    if (scripted === undefined) return (real.lookup as (h: string, o: unknown) => Promise<unknown>)(host, options);
    // A rebinding resolver: the first answer, then another address on every later lookup.
    const address = scripted.length > 1 ? scripted.shift()! : scripted[0]!;
    return [{ address, family: address.includes(':') ? 6 : 4 }];
  };
  return { ...real, lookup, default: { ...real, lookup } };
});

describe('guardedPost', () => {
  let receiver: WebhookReceiver;
  const post = (url: string, guard: AddressGuard, signal = AbortSignal.timeout(5000)) =>
    guardedPost({ url: new URL(url), headers: { 'content-type': 'application/json' }, body: '{"a":1}', signal, guard, responseBytesMax: 1024 });

  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(() => receiver.close());
  beforeEach(() => {
    receiver.requests.length = 0;
    receiver.script(200);
    answers.clear();
    lookups.length = 0;
  });

  it('connects to the address it judged, not to a second lookup (DNS rebinding)', async () => {
    const { port } = new URL(receiver.url);
    // First answer allowed (loopback), later answers a denied metadata address.
    answers.set('rebind.test', ['127.0.0.1', '169.254.169.254']);
    const answer = await post(`http://rebind.test:${port}/hook`, new AddressGuard(['169.254.0.0/16']));
    expect(answer).toEqual({ kind: 'answered', status: 200 });
    expect(lookups).toEqual(['rebind.test']);
    expect(receiver.requests).toHaveLength(1);
    expect(receiver.requests[0]?.headers.host).toBe(`rebind.test:${port}`);
    expect(receiver.requests[0]?.json).toEqual({ a: 1 });
  });

  it('refuses a name whose answer is denied, sending nothing', async () => {
    const { port } = new URL(receiver.url);
    answers.set('metadata.test', ['169.254.169.254']);
    expect(await post(`http://metadata.test:${port}/`, new AddressGuard(['169.254.0.0/16']))).toEqual({ kind: 'denied' });
    expect(receiver.requests).toHaveLength(0);
  });

  it('judges IP literals as they are, IPv4-mapped IPv6 as IPv4, without a lookup', async () => {
    const { port } = new URL(receiver.url);
    const guard = new AddressGuard(['127.0.0.0/8']);
    expect(await post(`http://127.0.0.1:${port}/`, guard)).toEqual({ kind: 'denied' });
    expect(await post(`http://[::ffff:127.0.0.1]:${port}/`, guard)).toEqual({ kind: 'denied' });
    expect(await post(`http://2130706433:${port}/`, guard)).toEqual({ kind: 'denied' });
    expect(lookups).toEqual([]);
    expect(receiver.requests).toHaveLength(0);
  });

  it('a name that does not resolve fails with the code only', async () => {
    answers.clear();
    const answer = await post('http://does-not-exist.invalid/secret', new AddressGuard());
    expect(answer.kind).toBe('failed');
    expect(JSON.stringify(answer)).not.toContain('does-not-exist');
  });
});
