// Tests InFlightSlots: the per-tenant and whole-process bounds, refusal at once with the caller's error, and slots given back once after success and failure.
import { describe, expect, it } from 'vitest';
import { AssertionFailure } from '../../src/core/assert.js';
import { InFlightSlots, type InFlightLimits, type SlotScope } from '../../src/monitoring/in-flight-slots.js';

/** Slots whose refusals are recorded and thrown as plain errors naming the bound. */
function slots(limits: InFlightLimits): { slots: InFlightSlots; refusals: [SlotScope, number][] } {
  const refusals: [SlotScope, number][] = [];
  const made = new InFlightSlots('job', limits, (scope, limit) => {
    refusals.push([scope, limit]);
    return new Error(`busy: ${scope} ${limit}`);
  });
  return { slots: made, refusals };
}

/** Work that settles only when the test says so. */
function held(): { work: () => Promise<string>; finish(): void; fail(): void } {
  let finish: () => void = () => undefined;
  let fail: () => void = () => undefined;
  const promise = new Promise<string>((resolve, reject) => {
    finish = () => resolve('done');
    fail = () => reject(new Error('work failed'));
  });
  return { work: () => promise, finish: () => finish(), fail: () => fail() };
}

describe('InFlightSlots', () => {
  it('refuses a tenant past its bound at once, without starting the work, while another tenant gets a slot', async () => {
    const { slots: s, refusals } = slots({ concurrencyMax: 10, perTenantMax: 2 });
    const [a, b, c] = [held(), held(), held()];
    const first = s.run('t1', a.work);
    const second = s.run('t1', b.work);
    let started = false;
    await expect(
      s.run('t1', async () => {
        started = true;
        return 'never';
      }),
    ).rejects.toThrow('busy: tenant 2');
    expect(started).toBe(false);
    const other = s.run('t2', c.work);
    expect([s.running(), s.tenants()]).toEqual([3, 2]);
    expect(refusals).toEqual([['tenant', 2]]);
    a.finish();
    b.finish();
    c.finish();
    await expect(Promise.all([first, second, other])).resolves.toEqual(['done', 'done', 'done']);
    expect([s.running(), s.tenants()]).toEqual([0, 0]);
  });

  it('refuses every tenant once the whole-process bound is reached, and admits again after a slot is given back', async () => {
    const { slots: s, refusals } = slots({ concurrencyMax: 3, perTenantMax: 2 });
    const [a, b, c] = [held(), held(), held()];
    const admitted = [s.run('t1', a.work), s.run('t1', b.work), s.run('t2', c.work)];
    await expect(s.run('t3', async () => 'x')).rejects.toThrow('busy: server 3');
    expect(refusals).toEqual([['server', 3]]);
    c.finish();
    await admitted[2];
    await expect(s.run('t3', async () => 'now')).resolves.toBe('now');
    a.finish();
    b.finish();
    await Promise.all(admitted);
    expect(s.running()).toBe(0);
  });

  it('gives the slot back when the work fails', async () => {
    const { slots: s } = slots({ concurrencyMax: 4, perTenantMax: 1 });
    const failing = held();
    const run = s.run('t1', failing.work);
    await expect(s.run('t1', async () => 'x')).rejects.toThrow('busy: tenant 1');
    failing.fail();
    await expect(run).rejects.toThrow('work failed');
    expect([s.running(), s.tenants()]).toEqual([0, 0]);
    await expect(s.run('t1', async () => 'again')).resolves.toBe('again');
  });

  it('gives an admitted slot back once, however often its release is called', () => {
    const { slots: s } = slots({ concurrencyMax: 2, perTenantMax: 2 });
    const release = s.admit('t1');
    const kept = s.admit('t1');
    release();
    release();
    expect([s.running(), s.tenants()]).toEqual([1, 1]);
    expect(() => s.admit('t1')).not.toThrow();
    expect(s.running()).toBe(2);
    kept();
  });

  it('refuses bounds that are not positive integers or a tenant bound above the process bound', () => {
    const refuse = (): Error => new Error('busy');
    for (const limits of [
      { concurrencyMax: 0, perTenantMax: 1 },
      { concurrencyMax: 2, perTenantMax: 3 },
      { concurrencyMax: 2, perTenantMax: 1.5 },
      { concurrencyMax: Number.POSITIVE_INFINITY, perTenantMax: 1 },
    ]) {
      expect(() => new InFlightSlots('job', limits, refuse), JSON.stringify(limits)).toThrow(AssertionFailure);
    }
    expect(() => new InFlightSlots('job', { concurrencyMax: 1, perTenantMax: 1 }, refuse)).not.toThrow();
  });
});
