// Tests the sms, incidentA and incidentB channels against real HTTP receivers on loopback: exact payloads, routing and outcomes.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createGatewayChannel } from '../../../src/monitoring/delivery/gateway-channel.js';
import { AddressGuard } from '../../../src/monitoring/probes/address-guard.js';
import { sampleEvent, sampleJob } from './channel-jobs.js';

/** A request as the receiver got it. */
interface Got {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: unknown;
}

interface Receiver {
  readonly url: string;
  readonly got: Got[];
  /** Status of the next answers; `hang` never answers. */
  status: number | 'hang';
  close(): Promise<void>;
}

const servers: Server[] = [];

async function receiver(): Promise<Receiver> {
  const got: Got[] = [];
  const state: { status: number | 'hang' } = { status: 202 };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      got.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      if (state.status === 'hang') return;
      res.writeHead(state.status, state.status === 302 ? { location: '/elsewhere' } : {}).end('{"status":"noted"}');
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/gateway`,
    got,
    get status() {
      return state.status;
    },
    set status(value) {
      state.status = value;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const NONE = { sms: undefined, incidentA: undefined, incidentB: undefined };
const API_KEY = '6f1d6f2e-3b1a-4c5d-9e8f-0a1b2c3d4e5f';

function signal(): AbortSignal {
  return AbortSignal.timeout(10_000);
}

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

describe('sms channel', () => {
  it('posts {to, body, event_id} with a body of at most 160 characters and the txn and event headers', async () => {
    const gw = await receiver();
    const channel = createGatewayChannel('sms', { ...NONE, sms: gw.url });
    const event = sampleEvent({ status: 'y'.repeat(300) });
    const outcome = await channel.deliver(sampleJob('sms', { details: { phone_number: '+15551234567' }, event }), signal());
    expect(outcome).toEqual({ ok: true, detail: 'sms gateway answered 202' });
    expect(gw.got).toHaveLength(1);
    const request = gw.got[0]!;
    expect(request.method).toBe('POST');
    expect(request.path).toBe('/gateway');
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['x-strata-txn-id']).toBe('.rh-deliver-42');
    expect(request.headers['x-strata-event-id']).toBe(event.event_id);
    const body = request.body as { to: string; body: string; event_id: string };
    expect(Object.keys(body).sort()).toEqual(['body', 'event_id', 'to']);
    expect(body.to).toBe('+15551234567');
    expect(body.event_id).toBe(event.event_id);
    expect(body.body.startsWith('CRITICAL web-1: High latency: yyy')).toBe(true);
    expect(body.body.endsWith('...')).toBe(true);
    expect(body.body).toHaveLength(160);
  });

  it('sends the whole short text when it fits', async () => {
    const gw = await receiver();
    const channel = createGatewayChannel('sms', { ...NONE, sms: gw.url });
    await channel.deliver(sampleJob('sms', { details: { phone_number: '+15551234567' } }), signal());
    expect((gw.got[0]!.body as { body: string }).body).toBe('CRITICAL web-1: High latency: HTTP status 500 from www.example.test');
  });
});

describe('incidentA channel', () => {
  it('triggers an incident keyed by entity and alarm, with the whole event as details', async () => {
    const gw = await receiver();
    const channel = createGatewayChannel('incidentA', { ...NONE, incidentA: gw.url });
    const job = sampleJob('incidentA', { details: { service_key: 'abc123DEF' } });
    expect(await channel.deliver(job, signal())).toEqual({ ok: true, detail: 'incidentA gateway answered 202' });
    expect(gw.got[0]!.body).toEqual({
      service_key: 'abc123DEF',
      event_type: 'trigger',
      incident_key: 'enWeb1:alHigh',
      description: 'CRITICAL web-1: High latency: HTTP status 500 from www.example.test',
      details: job.event,
    });
  });

  it('resolves the incident when the alarm returns to OK, and triggers on WARNING', async () => {
    const gw = await receiver();
    const channel = createGatewayChannel('incidentA', { ...NONE, incidentA: gw.url });
    for (const state of ['OK', 'WARNING']) {
      await channel.deliver(sampleJob('incidentA', { details: { service_key: 'k1' }, event: sampleEvent({ state }) }), signal());
    }
    expect(gw.got.map((g) => (g.body as { event_type: string }).event_type)).toEqual(['resolve', 'trigger']);
  });

  it('posts to the notification service_endpoint instead of the configured gateway', async () => {
    const configured = await receiver();
    const own = await receiver();
    const channel = createGatewayChannel('incidentA', { ...NONE, incidentA: configured.url });
    const outcome = await channel.deliver(sampleJob('incidentA', { details: { service_key: 'k1', service_endpoint: `${own.url}/v1/events` } }), signal());
    expect(outcome.ok).toBe(true);
    expect(configured.got).toHaveLength(0);
    expect(own.got.map((g) => g.path)).toEqual(['/gateway/v1/events']);
  });

  it('uses service_endpoint even when no incidentA gateway is configured', async () => {
    const own = await receiver();
    const channel = createGatewayChannel('incidentA', NONE);
    expect((await channel.deliver(sampleJob('incidentA', { details: { service_key: 'k1', service_endpoint: own.url } }), signal())).ok).toBe(true);
    expect(own.got).toHaveLength(1);
  });
});

describe('incidentB channel', () => {
  it('posts to <gateway>/<api_key>/<routing_key> with the message fields', async () => {
    const gw = await receiver();
    const channel = createGatewayChannel('incidentB', { ...NONE, incidentB: `${gw.url}/` });
    const job = sampleJob('incidentB', { details: { api_key: API_KEY, routing_key: 'team_a.web' } });
    expect((await channel.deliver(job, signal())).ok).toBe(true);
    expect(gw.got[0]!.path).toBe(`/gateway/${API_KEY}/team_a.web`);
    expect(gw.got[0]!.body).toEqual({
      message_type: 'CRITICAL',
      entity_id: 'enWeb1:alHigh',
      entity_display_name: 'web-1: High latency',
      state_message: 'CRITICAL web-1: High latency: HTTP status 500 from www.example.test',
      timestamp: 1_735_787_045,
      event_id: job.event.event_id,
    });
  });

  it('routes to everyone without a routing_key and maps OK to RECOVERY, WARNING to WARNING', async () => {
    const gw = await receiver();
    const channel = createGatewayChannel('incidentB', { ...NONE, incidentB: gw.url });
    for (const state of ['OK', 'WARNING']) {
      await channel.deliver(sampleJob('incidentB', { details: { api_key: API_KEY }, event: sampleEvent({ state }) }), signal());
    }
    expect(gw.got.map((g) => g.path)).toEqual([`/gateway/${API_KEY}/everyone`, `/gateway/${API_KEY}/everyone`]);
    expect(gw.got.map((g) => (g.body as { message_type: string }).message_type)).toEqual(['RECOVERY', 'WARNING']);
  });
});

describe('gateway outcomes', () => {
  it.each([
    [500, true],
    [503, true],
    [408, true],
    [429, true],
    [400, false],
    [401, false],
    [404, false],
    [302, false],
  ])('answers %i as a failure, retryable: %s (a redirect is not followed)', async (status, retryable) => {
    const gw = await receiver();
    gw.status = status;
    const channel = createGatewayChannel('incidentB', { ...NONE, incidentB: gw.url });
    const outcome = await channel.deliver(sampleJob('incidentB', { details: { api_key: API_KEY } }), signal());
    expect(outcome).toEqual({ ok: false, retryable, error: `incidentB gateway answered ${status}` });
    expect(gw.got).toHaveLength(1);
  });

  it.each([
    ['sms', { phone_number: '+15551234567' }, '--sms-gateway'],
    ['incidentA', { service_key: 'k1' }, '--incident-a-endpoint'],
    ['incidentB', { api_key: API_KEY }, '--incident-b-endpoint'],
  ] as const)('fails %s without a configured gateway, not retryable, naming %s', async (type, details, flag) => {
    const outcome = await createGatewayChannel(type, NONE).deliver(sampleJob(type, { details }), signal());
    expect(outcome).toEqual({ ok: false, retryable: false, error: `no ${type} gateway configured (${flag})` });
  });

  it('retries an unreachable gateway and never names the URL or the api_key', async () => {
    const gw = await receiver();
    const url = gw.url;
    await gw.close();
    const channel = createGatewayChannel('incidentB', { ...NONE, incidentB: url });
    const outcome = await channel.deliver(sampleJob('incidentB', { details: { api_key: API_KEY } }), signal());
    expect(outcome).toEqual({ ok: false, retryable: true, error: 'incidentB gateway unreachable (ECONNREFUSED)' });
  });

  it('settles with a retryable failure when the attempt signal aborts a hanging gateway', async () => {
    const gw = await receiver();
    gw.status = 'hang';
    const channel = createGatewayChannel('incidentA', { ...NONE, incidentA: gw.url });
    const started = performance.now();
    const outcome = await channel.deliver(sampleJob('incidentA', { details: { service_key: 'k1' } }), AbortSignal.timeout(200));
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(outcome).toEqual({ ok: false, retryable: true, error: 'incidentA gateway request timed out' });
  });

  it('fails a job missing its required detail, and a gateway URL that is not http, not retryable', async () => {
    const channel = createGatewayChannel('sms', { ...NONE, sms: 'ftp://gateway.test/' });
    expect(await channel.deliver(sampleJob('sms'), signal())).toEqual({ ok: false, retryable: false, error: 'the notification has no phone_number' });
    expect(await channel.deliver(sampleJob('sms', { details: { phone_number: '+15551234567' } }), signal())).toEqual({
      ok: false,
      retryable: false,
      error: 'the sms gateway URL is not http or https',
    });
  });
});

describe('gateways and the operator deny list (--check-deny)', () => {
  const LOOPBACK_DENIED = new AddressGuard(['127.0.0.0/8', '::1/128']);

  it('refuses an incidentA service_endpoint at a denied address, not retryable, and sends nothing', async () => {
    const configured = await receiver();
    const own = await receiver();
    const channel = createGatewayChannel('incidentA', { ...NONE, incidentA: configured.url }, LOOPBACK_DENIED);
    const outcome = await channel.deliver(sampleJob('incidentA', { details: { service_key: 'k1', service_endpoint: `${own.url}/v1/events` } }), signal());
    expect(outcome).toEqual({ ok: false, retryable: false, error: 'incidentA gateway address is denied by the operator (--check-deny)' });
    expect(own.got).toHaveLength(0);
    expect(configured.got).toHaveLength(0);
    expect(JSON.stringify(outcome)).not.toContain('v1/events');
  });

  it('refuses a service_endpoint whose host name resolves into a denied range', async () => {
    const own = await receiver();
    const { port } = new URL(own.url);
    const channel = createGatewayChannel('incidentA', NONE, LOOPBACK_DENIED);
    const outcome = await channel.deliver(sampleJob('incidentA', { details: { service_key: 'k1', service_endpoint: `http://localhost:${port}/gateway` } }), signal());
    expect(outcome).toMatchObject({ ok: false, retryable: false });
    expect(own.got).toHaveLength(0);
  });

  it('applies to the configured gateways too, and never names the URL or the api_key', async () => {
    const gw = await receiver();
    const channel = createGatewayChannel('incidentB', { ...NONE, incidentB: gw.url }, LOOPBACK_DENIED);
    const outcome = await channel.deliver(sampleJob('incidentB', { details: { api_key: API_KEY } }), signal());
    expect(outcome).toEqual({ ok: false, retryable: false, error: 'incidentB gateway address is denied by the operator (--check-deny)' });
    expect(gw.got).toHaveLength(0);
    expect(JSON.stringify(outcome)).not.toContain(API_KEY);
  });

  it('delivers to a service_endpoint the guard allows, with the URL host in the Host header', async () => {
    const own = await receiver();
    const { port } = new URL(own.url);
    const channel = createGatewayChannel('incidentA', NONE, new AddressGuard(['10.0.0.0/8', '169.254.0.0/16']));
    const outcome = await channel.deliver(sampleJob('incidentA', { details: { service_key: 'k1', service_endpoint: `http://localhost:${port}/gateway` } }), signal());
    expect(outcome).toEqual({ ok: true, detail: 'incidentA gateway answered 202' });
    expect(own.got).toHaveLength(1);
    expect(own.got[0]!.headers.host).toBe(`localhost:${port}`);
  });
});
