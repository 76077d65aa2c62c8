// Property test of admission's accounting: whatever arrives and leaves, in-flight never exceeds a budget, always equals what the live tickets hold, and returns to zero.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Admission } from '../../src/http/admission.js';
import { isRefusal, type AdmissionLimits, type AdmissionTicket } from '../../src/http/admission-budget.js';
import type { WorkKind } from '../../src/http/route-rules.js';

const KINDS: readonly WorkKind[] = ['ingest', 'query'];
const TENANTS = ['t1', 't2', 't3'];

const limitsArbitrary: fc.Arbitrary<AdmissionLimits> = fc
  .record({ concurrency: fc.integer({ min: 1, max: 4 }), queueMax: fc.integer({ min: 0, max: 6 }), bodyBytesMax: fc.integer({ min: 1, max: 5_000 }) })
  .chain((base) =>
    fc.record({
      concurrency: fc.constant(base.concurrency),
      queueMax: fc.constant(base.queueMax),
      bodyBytesMax: fc.constant(base.bodyBytesMax),
      tenantRequestsMax: fc.integer({ min: 1, max: base.concurrency + base.queueMax }),
      tenantBodyBytesMax: fc.integer({ min: 1, max: base.bodyBytesMax }),
    }),
  );

/** One event: a request arrives (kind, tenant, declared bytes), or the `pick`-th live request is answered or aborted. */
type Step = { arrive: true; kind: WorkKind; tenant: string; bytes: number } | { arrive: false; pick: number; twice: boolean };

const stepArbitrary: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ arrive: fc.constant(true as const), kind: fc.constantFrom(...KINDS), tenant: fc.constantFrom(...TENANTS), bytes: fc.integer({ min: 0, max: 3_000 }) }),
  fc.record({ arrive: fc.constant(false as const), pick: fc.nat(), twice: fc.boolean() }),
);

function sumOf(tickets: readonly AdmissionTicket[], kind: WorkKind, tenant?: string): { requests: number; bodyBytes: number } {
  const mine = tickets.filter((t) => t.kind === kind && (tenant === undefined || t.tenant === tenant));
  return { requests: mine.length, bodyBytes: mine.reduce((sum, t) => sum + t.bodyBytes, 0) };
}

describe('Admission accounting (property)', () => {
  it('never exceeds a budget, matches the live tickets after every step, and returns to zero', () => {
    fc.assert(
      fc.property(limitsArbitrary, limitsArbitrary, fc.array(stepArbitrary, { maxLength: 200 }), (ingest, query, steps) => {
        const admission = new Admission({ ingest, query });
        const limits = { ingest, query };
        const live: AdmissionTicket[] = [];
        for (const step of steps) {
          if (step.arrive) {
            const outcome = admission.tryAdmit(step.kind, step.tenant, step.bytes);
            if (!isRefusal(outcome)) live.push(outcome);
          } else if (live.length > 0) {
            const [ticket] = live.splice(step.pick % live.length, 1) as [AdmissionTicket];
            admission.release(ticket);
            // A response and a connection close may both release the same request.
            if (step.twice) admission.release(ticket);
          }
          for (const kind of KINDS) {
            const total = admission.inFlight().get(kind);
            expect(total).toEqual(sumOf(live, kind));
            const l = limits[kind];
            expect(total!.requests).toBeLessThanOrEqual(l.concurrency + l.queueMax);
            expect(total!.bodyBytes).toBeLessThanOrEqual(l.bodyBytesMax);
            for (const tenant of TENANTS) {
              const mine = admission.tenantInFlight(kind, tenant);
              expect(mine).toEqual(sumOf(live, kind, tenant));
              expect(mine.requests).toBeLessThanOrEqual(l.tenantRequestsMax);
              expect(mine.bodyBytes).toBeLessThanOrEqual(l.tenantBodyBytesMax);
            }
          }
        }
        for (const ticket of live.splice(0)) admission.release(ticket);
        for (const kind of KINDS) expect(admission.inFlight().get(kind)).toEqual({ requests: 0, bodyBytes: 0 });
      }),
      { numRuns: 300 },
    );
  });

  it('admits a request whenever it fits every budget (no refusal without cause)', () => {
    fc.assert(
      fc.property(limitsArbitrary, fc.array(fc.record({ tenant: fc.constantFrom(...TENANTS), bytes: fc.integer({ min: 0, max: 3_000 }) }), { maxLength: 60 }), (ingest, arrivals) => {
        const admission = new Admission({ ingest, query: ingest });
        for (const { tenant, bytes } of arrivals) {
          const charge = Math.min(bytes, ingest.tenantBodyBytesMax);
          const total = admission.inFlight().get('ingest')!;
          const mine = admission.tenantInFlight('ingest', tenant);
          const fits =
            total.requests < ingest.concurrency + ingest.queueMax &&
            mine.requests < ingest.tenantRequestsMax &&
            total.bodyBytes + charge <= ingest.bodyBytesMax &&
            mine.bodyBytes + charge <= ingest.tenantBodyBytesMax;
          expect(isRefusal(admission.tryAdmit('ingest', tenant, bytes))).toBe(!fits);
        }
      }),
      { numRuns: 300 },
    );
  });
});
