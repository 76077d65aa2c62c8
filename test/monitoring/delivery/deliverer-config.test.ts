// Owns the tests of what a deliverer is built from: the delivery configuration's defaults and checks, and a channel for every notification type.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { systemClock } from '../../../src/core/clock.js';
import { openFeeds } from '../../../src/feeds/feeds-service.js';
import { closeChannels, createChannels } from '../../../src/monitoring/delivery/channel-registry.js';
import { DEFAULT_DELIVERY_CONFIG, resolveDeliveryConfig } from '../../../src/monitoring/delivery/delivery-config.js';
import { NOTIFICATION_TYPE_IDS } from '../../../src/monitoring/notification-types.js';
import { memoryLogger } from './delivery-fixture.js';

describe('delivery configuration', () => {
  it('defaults: 10 attempts, 1 s doubling to 5 min, 10 s per attempt, 16 at once, RAX, no relay or gateways', () => {
    expect(resolveDeliveryConfig()).toEqual(DEFAULT_DELIVERY_CONFIG);
    expect(DEFAULT_DELIVERY_CONFIG).toMatchObject({ attemptsMax: 10, retryBaseMs: 1000, retryMaxMs: 300_000, attemptTimeoutMs: 10_000, concurrency: 16, vendorPrefix: 'RAX', smtp: undefined });
  });

  it('keeps defaults for fields given as undefined and merges gateways', () => {
    const config = resolveDeliveryConfig({ attemptsMax: undefined, gateways: { sms: 'http://127.0.0.1:9/sms', incidentA: undefined, incidentB: undefined } });
    expect(config.attemptsMax).toBe(10);
    expect(config.gateways.sms).toBe('http://127.0.0.1:9/sms');
  });

  it.each([
    [{ attemptsMax: 0 }, 'delivery.attemptsMax'],
    [{ attemptsMax: 51 }, 'delivery.attemptsMax'],
    [{ retryBaseMs: 600_000 }, 'delivery.retryBaseMs'],
    [{ retryMaxMs: 0 }, 'delivery.retryMaxMs'],
    [{ attemptTimeoutMs: 60_001 }, 'delivery.attemptTimeoutMs'],
    [{ concurrency: 1.5 }, 'delivery.concurrency'],
    [{ vendorPrefix: 'R-X' }, 'delivery.vendorPrefix'],
    [{ smtp: { host: '', port: 25, secure: false, from: 'a@b' } }, 'delivery.smtp.host'],
    [{ smtp: { host: 'h', port: 70_000, secure: false, from: 'a@b' } }, 'delivery.smtp.port'],
    [{ smtp: { host: 'h', port: 25, secure: false, from: 'nobody' } }, 'delivery.smtp.from'],
    [{ gateways: { sms: 'ftp://x', incidentA: undefined, incidentB: undefined } }, 'delivery.gateways.sms'],
  ])('refuses %j naming %s', (input, option) => {
    expect(() => resolveDeliveryConfig(input)).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID', details: expect.objectContaining({ option }) }));
  });
});

describe('createChannels', () => {
  it('wires one channel per notification type, each of its own type', () => {
    const dir = mkdtempSync(join(tmpdir(), 'strata-channels-'));
    const feeds = openFeeds({ dir, clock: systemClock, region: 'LOCAL' });
    try {
      const channels = createChannels(resolveDeliveryConfig({ smtp: { host: '127.0.0.1', port: 2525, secure: false, from: 'monitor@example.com' } }), { feeds, logger: memoryLogger() });
      expect([...channels.keys()].sort()).toEqual([...NOTIFICATION_TYPE_IDS].sort());
      for (const [type, channel] of channels) expect(channel.type).toBe(type);
      closeChannels(channels);
    } finally {
      feeds.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
