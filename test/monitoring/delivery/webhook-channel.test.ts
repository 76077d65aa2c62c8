// Owns the webhook channel tests against a real receiver: headers, body, status classes, redirects, timeouts and unreachable targets.
import { createServer } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { EVENT_ID_HEADER, TXN_ID_HEADER } from '../../../src/monitoring/delivery/alert-text.js';
import { createWebhookChannel, webhookStatusOutcome, webhookTokenHeader } from '../../../src/monitoring/delivery/webhook-channel.js';
import { WEBHOOK_RESPONSE_BYTES_MAX } from '../../../src/monitoring/monitoring-limits.js';
import { AddressGuard } from '../../../src/monitoring/probes/address-guard.js';
import { sampleJob } from './channel-jobs.js';
import { startReceiver, type WebhookReceiver } from './webhook-receiver.js';

const signal = (): AbortSignal => AbortSignal.timeout(5000);

describe('webhook channel', () => {
  let receiver: WebhookReceiver;
  const channel = createWebhookChannel('RAX');

  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(() => receiver.close());
  beforeEach(() => {
    receiver.requests.length = 0;
    receiver.script(200);
  });

  it('POSTs the event as JSON with the token, transaction and event id headers', async () => {
    const job = sampleJob('webhook', { details: { url: `${receiver.url}/hook?key=s3cret` } });
    const outcome = await channel.deliver(job, signal());
    expect(outcome).toEqual({ ok: true, detail: 'webhook answered 200' });
    expect(receiver.requests).toHaveLength(1);
    const [request] = receiver.requests;
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe('/hook?key=s3cret');
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.headers['x-rax-webhook-token']).toBe('webhook-token-secret');
    expect(request?.headers[TXN_ID_HEADER.toLowerCase()]).toBe('.rh-deliver-42');
    expect(request?.headers[EVENT_ID_HEADER.toLowerCase()]).toBe(job.event.event_id);
    expect(request?.json).toEqual(job.event);
  });

  it('names the token header after the vendor prefix, lower-cased', () => {
    expect(webhookTokenHeader('RAX')).toBe('x-rax-webhook-token');
    expect(webhookTokenHeader('Acme9')).toBe('x-acme9-webhook-token');
    expect(createWebhookChannel('RAX').type).toBe('webhook');
  });

  it('classes answers: 2xx delivered, 408/429/5xx retried, other 4xx and 3xx dead', async () => {
    const job = sampleJob('webhook', { details: { url: `${receiver.url}/hook` } });
    const cases: [number, boolean | 'ok'][] = [
      [204, 'ok'], [299, 'ok'], [408, true], [429, true], [500, true], [503, true], [400, false], [401, false], [404, false], [410, false],
    ];
    for (const [status, expected] of cases) {
      receiver.script(status);
      const outcome = await channel.deliver(job, signal());
      if (expected === 'ok') expect(outcome.ok, `${status}`).toBe(true);
      else expect(outcome, `${status}`).toMatchObject({ ok: false, retryable: expected, error: expect.stringContaining(String(status)) });
    }
    expect(webhookStatusOutcome(302)).toEqual({ ok: false, retryable: false, error: 'webhook answered 302 (redirects are not followed)' });
  });

  it('does not follow redirects', async () => {
    receiver.script({ status: 307, headers: { location: `${receiver.url}/elsewhere` } }, 200);
    const outcome = await channel.deliver(sampleJob('webhook', { details: { url: `${receiver.url}/hook` } }), signal());
    expect(outcome).toMatchObject({ ok: false, retryable: false, error: expect.stringContaining('307') });
    expect(receiver.requests.map((r) => r.path)).toEqual(['/hook']);
  });

  it('reads a large answer only up to its bound and still succeeds', async () => {
    receiver.script({ status: 200, body: 'x'.repeat(WEBHOOK_RESPONSE_BYTES_MAX * 8) });
    const outcome = await channel.deliver(sampleJob('webhook', { details: { url: `${receiver.url}/hook` } }), signal());
    expect(outcome.ok).toBe(true);
  });

  it('a receiver that does not answer times out with the signal, retryable', async () => {
    receiver.script('hang');
    const started = performance.now();
    const outcome = await channel.deliver(sampleJob('webhook', { details: { url: `${receiver.url}/hook` } }), AbortSignal.timeout(150));
    expect(outcome).toEqual({ ok: false, retryable: true, error: 'webhook request timed out' });
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('an unreachable target is retryable and the error names neither URL nor token', async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer();
      probe.listen(0, '127.0.0.1', () => {
        const { port: free } = probe.address() as { port: number };
        probe.close(() => resolve(free));
      });
    });
    const outcome = await channel.deliver(sampleJob('webhook', { details: { url: `http://127.0.0.1:${port}/secret-path` } }), signal());
    expect(outcome).toMatchObject({ ok: false, retryable: true });
    const text = JSON.stringify(outcome);
    expect(text).toContain('ECONNREFUSED');
    expect(text).not.toContain('secret-path');
    expect(text).not.toContain('webhook-token-secret');
  });

  it('a missing or non-http url is dead at once, without a request', async () => {
    const detailSets: Record<string, string>[] = [{}, { url: 'ftp://example.com/x' }, { url: 'not a url' }];
    for (const details of detailSets) {
      const outcome = await channel.deliver(sampleJob('webhook', { details }), signal());
      expect(outcome).toEqual({ ok: false, retryable: false, error: 'the notification has no http or https url' });
    }
    expect(receiver.requests).toHaveLength(0);
  });

  it('an already aborted signal sends nothing', async () => {
    const outcome = await channel.deliver(sampleJob('webhook', { details: { url: `${receiver.url}/hook` } }), AbortSignal.abort());
    expect(outcome).toMatchObject({ ok: false, retryable: true });
    expect(receiver.requests).toHaveLength(0);
  });

  describe('with the operator deny list (--check-deny)', () => {
    const DENIED = { ok: false, retryable: false, error: 'webhook target address is denied by the operator (--check-deny)' };

    it('refuses a webhook to a denied address, not retryable, and sends nothing', async () => {
      const guarded = createWebhookChannel('RAX', new AddressGuard(['127.0.0.0/8']));
      const outcome = await guarded.deliver(sampleJob('webhook', { details: { url: `${receiver.url}/secret-path?key=s3cret` } }), signal());
      expect(outcome).toEqual(DENIED);
      expect(receiver.requests).toHaveLength(0);
      const text = JSON.stringify(outcome);
      expect(text).not.toContain('secret-path');
      expect(text).not.toContain('127.0.0.1');
      expect(text).not.toContain('webhook-token-secret');
    });

    it('refuses a host name that resolves into a denied range', async () => {
      const guarded = createWebhookChannel('RAX', new AddressGuard(['127.0.0.0/8', '::1/128']));
      const { port } = new URL(receiver.url);
      const outcome = await guarded.deliver(sampleJob('webhook', { details: { url: `http://localhost:${port}/hook` } }), signal());
      expect(outcome).toEqual(DENIED);
      expect(receiver.requests).toHaveLength(0);
    });

    it('delivers to an address the guard allows, keeping the URL host in the Host header', async () => {
      const guarded = createWebhookChannel('RAX', new AddressGuard(['10.0.0.0/8', '169.254.0.0/16']));
      const { port } = new URL(receiver.url);
      const outcome = await guarded.deliver(sampleJob('webhook', { details: { url: `http://localhost:${port}/hook` } }), signal());
      expect(outcome).toEqual({ ok: true, detail: 'webhook answered 200' });
      expect(receiver.requests).toHaveLength(1);
      expect(receiver.requests[0]?.headers.host).toBe(`localhost:${port}`);
      expect(receiver.requests[0]?.headers['x-rax-webhook-token']).toBe('webhook-token-secret');
    });
  });
});
