// Tests the poster's one pacing timer: a shorter wait (a connection that became ready again) replaces a longer one (another connection's rate-limit hold).
import { describe, expect, it } from 'vitest';
import { ResultPoster, type PostConnection } from '../../../src/agent/client/result-poster.js';
import type { MetricsPostParams } from '../../../src/agent/protocol/messages.js';
import { wireMetric } from '../../../src/agent/protocol/wire-metrics.js';
import { ManualClock } from '../../../src/core/clock.js';
import { StrataError } from '../../../src/core/errors.js';
import { ManualScheduler, settle } from './manual-scheduler.js';
import { recordingLogger } from './test-endpoint.js';

const START_MS = 1_700_000_000_000;

/** A connection whose posts wait until the test settles them; the poster's view of a real one (the real ones are tested over TLS in result-poster.test.ts). */
class HeldConnection implements PostConnection {
  ready = true;
  readonly posts: { params: unknown; resolve: (value: unknown) => void; reject: (error: unknown) => void }[] = [];

  constructor(readonly name: string) {}

  request(_method: string, params: unknown): Promise<unknown> {
    return new Promise((resolve, reject) => this.posts.push({ params, resolve, reject }));
  }
}

function result(index: number): MetricsPostParams {
  return { check_id: `ch${index}`, check_type: 'agent.test', state: 'available', status: 'success', metrics: [[null, { n: wireMetric('int64', index, 'count') }]], timestamp: START_MS + index };
}

describe('ResultPoster pacing timer', () => {
  it('posts on a connection that comes back within its pacing gap without waiting out another connection\'s rate-limit hold', async () => {
    const clock = new ManualClock(START_MS);
    const scheduler = new ManualScheduler(clock);
    const a = new HeldConnection('a');
    const b = new HeldConnection('b');
    const poster = new ResultPoster({ connections: [a, b], clock, scheduler, logger: recordingLogger() });
    poster.enqueue(result(0));
    poster.enqueue(result(1));
    expect([a.posts.length, b.posts.length]).toEqual([1, 1]);
    // b drops out; a's post is rate-limited: a is held for the backoff, the result waits.
    b.ready = false;
    a.posts[0]?.reject(new StrataError('AGENT_REQUEST_REFUSED', 'rate limited', { code: 400, type: 'AGENT_RATE_LIMITED', message: 'slow down' }));
    await settle();
    expect(poster.status()).toMatchObject({ buffered: 1, requeued: 1 });
    // b is back before its own pacing gap has passed: the poster must come back for it then,
    // not at the end of a's hold.
    b.ready = true;
    poster.pump();
    await scheduler.advance(50); // well inside a's 1 s hold (AGENT_RATE_LIMITED_BACKOFF_MS)
    expect(b.posts).toHaveLength(2);
    expect(a.posts).toHaveLength(1);
    expect(poster.status().buffered).toBe(0);
    poster.stop();
  });
});
