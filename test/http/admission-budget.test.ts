// Tests admission's in-flight accounting: per-tenant against server budgets, counts against bytes, kinds apart, release once.
import { describe, expect, it } from 'vitest';
import { Admission } from '../../src/http/admission.js';
import { isRefusal, type AdmissionLimits, type AdmissionTicket, type Refusal } from '../../src/http/admission-budget.js';
import { declaredBodyBytes } from '../../src/http/admission-request.js';

const KIB = 1024;

/** Ingest: 4 requests in flight (2 running + 2 more), 2 per tenant; 100 KiB in flight, 60 per tenant. */
const INGEST: AdmissionLimits = { concurrency: 2, queueMax: 2, tenantRequestsMax: 2, bodyBytesMax: 100 * KIB, tenantBodyBytesMax: 60 * KIB };
const QUERY: AdmissionLimits = { concurrency: 1, queueMax: 1, tenantRequestsMax: 2, bodyBytesMax: 10 * KIB, tenantBodyBytesMax: 10 * KIB };

function admitted(outcome: AdmissionTicket | Refusal): AdmissionTicket {
  if (isRefusal(outcome)) throw new Error(`refused by ${outcome.scope} ${outcome.limit}`);
  return outcome;
}

describe('Admission budgets', () => {
  it('refuses a tenant over its request budget while other tenants are still admitted', () => {
    const admission = new Admission({ ingest: INGEST, query: QUERY });
    admitted(admission.tryAdmit('ingest', 'a', 0));
    admitted(admission.tryAdmit('ingest', 'a', 0));
    expect(admission.tryAdmit('ingest', 'a', 0)).toEqual({ scope: 'tenant', limit: 'requests' });
    admitted(admission.tryAdmit('ingest', 'b', 0));
    admitted(admission.tryAdmit('ingest', 'b', 0));
    // The server's budget (concurrency + queueMax = 4) is now full for every tenant.
    expect(admission.tryAdmit('ingest', 'c', 0)).toEqual({ scope: 'server', limit: 'requests' });
    expect(admission.inFlight().get('ingest')).toEqual({ requests: 4, bodyBytes: 0 });
  });

  it('counts body bytes per tenant and for the server, apart from request counts', () => {
    const admission = new Admission({ ingest: INGEST, query: QUERY });
    const big = admitted(admission.tryAdmit('ingest', 'a', 50 * KIB));
    // 50 + 20 > 60 KiB for tenant a, though it has a request slot left.
    expect(admission.tryAdmit('ingest', 'a', 20 * KIB)).toEqual({ scope: 'tenant', limit: 'bodyBytes' });
    admitted(admission.tryAdmit('ingest', 'a', 10 * KIB));
    admitted(admission.tryAdmit('ingest', 'b', 30 * KIB));
    // 90 KiB in flight: 20 more from tenant c breaks the server's 100.
    expect(admission.tryAdmit('ingest', 'c', 20 * KIB)).toEqual({ scope: 'server', limit: 'bodyBytes' });
    admitted(admission.tryAdmit('ingest', 'c', 10 * KIB));
    expect(admission.tenantInFlight('ingest', 'a')).toEqual({ requests: 2, bodyBytes: 60 * KIB });
    admission.release(big);
    expect(admission.tenantInFlight('ingest', 'a')).toEqual({ requests: 1, bodyBytes: 10 * KIB });
    expect(admission.inFlight().get('ingest')).toEqual({ requests: 3, bodyBytes: 50 * KIB });
  });

  it('keeps ingest and query budgets apart: a saturated ingest budget admits queries', () => {
    const admission = new Admission({ ingest: INGEST, query: QUERY });
    for (const tenant of ['a', 'a', 'b', 'b']) admitted(admission.tryAdmit('ingest', tenant, 0));
    expect(isRefusal(admission.tryAdmit('ingest', 'a', 0))).toBe(true);
    admitted(admission.tryAdmit('query', 'a', 0));
    expect(admission.inFlight().get('query')).toEqual({ requests: 1, bodyBytes: 0 });
  });

  it('releases a ticket once: a second release (response and close both firing) changes nothing', () => {
    const admission = new Admission({ ingest: INGEST, query: QUERY });
    const first = admitted(admission.tryAdmit('ingest', 'a', 5 * KIB));
    const second = admitted(admission.tryAdmit('ingest', 'a', 7 * KIB));
    admission.release(first);
    admission.release(first);
    expect(admission.inFlight().get('ingest')).toEqual({ requests: 1, bodyBytes: 7 * KIB });
    admission.release(second);
    expect(admission.inFlight().get('ingest')).toEqual({ requests: 0, bodyBytes: 0 });
    expect(admission.tenantInFlight('ingest', 'a')).toEqual({ requests: 0, bodyBytes: 0 });
  });

  it('caps one charge at the tenant byte budget, so a lone request is always admitted', () => {
    const admission = new Admission({ ingest: INGEST, query: QUERY });
    const huge = admitted(admission.tryAdmit('ingest', 'a', 10 * 1024 * KIB));
    expect(huge.bodyBytes).toBe(60 * KIB);
    expect(admission.tryAdmit('ingest', 'a', 1)).toEqual({ scope: 'tenant', limit: 'bodyBytes' });
  });

  it('counts refusals per kind and budget', () => {
    const admission = new Admission({ ingest: INGEST, query: QUERY });
    admitted(admission.tryAdmit('query', 'a', 0));
    admitted(admission.tryAdmit('query', 'a', 0));
    admission.tryAdmit('query', 'a', 0);
    admission.tryAdmit('query', 'b', 0);
    expect(admission.refusals()).toEqual(
      expect.arrayContaining([
        { kind: 'query', scope: 'tenant', limit: 'requests', count: 1 },
        { kind: 'query', scope: 'server', limit: 'requests', count: 1 },
      ]),
    );
  });

  it('refuses budgets that could never bind or never admit', () => {
    const bad = (ingest: Partial<AdmissionLimits>) => () => new Admission({ ingest: { ...INGEST, ...ingest }, query: QUERY });
    expect(bad({ tenantRequestsMax: 5 })).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID', details: expect.objectContaining({ option: 'admission.ingest.tenantRequestsMax' }) }));
    expect(bad({ tenantBodyBytesMax: 101 * KIB })).toThrow(expect.objectContaining({ details: expect.objectContaining({ option: 'admission.ingest.tenantBodyBytesMax' }) }));
    expect(bad({ bodyBytesMax: 0 })).toThrow(expect.objectContaining({ details: expect.objectContaining({ option: 'admission.ingest.bodyBytesMax' }) }));
    expect(bad({ bodyBytesMax: 1.5 })).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
  });
});

describe('declaredBodyBytes', () => {
  it('is the Content-Length, the route limit for a chunked body, 0 without a body', () => {
    expect(declaredBodyBytes({ 'content-length': '1234' }, 10_000)).toBe(1234);
    expect(declaredBodyBytes({ 'content-length': '0' }, 10_000)).toBe(0);
    expect(declaredBodyBytes({ 'transfer-encoding': 'chunked' }, 10_000)).toBe(10_000);
    expect(declaredBodyBytes({}, 10_000)).toBe(0);
  });

  it('never charges more than the route limit: a larger body gets its 413 unread', () => {
    expect(declaredBodyBytes({ 'content-length': '99999999' }, 10_000)).toBe(10_000);
  });
});
