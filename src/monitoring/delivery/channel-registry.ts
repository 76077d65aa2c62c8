// Owns wiring every notification type to its channel: webhook, email and technical contacts, the gateways, the event feed and managed.
import type { Feeds } from '../../feeds/feeds-service.js';
import { NOTIFICATION_TYPE_IDS, type NotificationTypeId } from '../notification-types.js';
import { AddressGuard } from '../probes/address-guard.js';
import type { Channel } from './channel-types.js';
import type { DeliveryConfig, DeliveryLogger } from './delivery-config.js';
import { createEmailChannel } from './email-channel.js';
import { createFeedChannel } from './feed-channel.js';
import { createGatewayChannel } from './gateway-channel.js';
import { createManagedChannel } from './managed-channel.js';
import { createWebhookChannel } from './webhook-channel.js';

/** What the channels need besides the configuration. */
export interface ChannelDeps {
  /** The event-feed service eventFeed notifications publish to. */
  readonly feeds: Feeds;
  readonly logger: DeliveryLogger;
  /**
   * The operator's deny list (--check-deny), applied to every outbound delivery HTTP request
   * (webhook, sms, incidentA, incidentB); allow-all when left out.
   */
  readonly guard?: AddressGuard;
}

/** A channel for each of the eight notification types of spec 2.5, keyed by type. */
export function createChannels(config: DeliveryConfig, deps: ChannelDeps): Map<NotificationTypeId, Channel> {
  const guard = deps.guard ?? new AddressGuard();
  const channels: readonly Channel[] = [
    createWebhookChannel(config.vendorPrefix, guard),
    createEmailChannel(config.smtp, 'email'),
    createEmailChannel(config.smtp, 'technicalContactsEmail'),
    createGatewayChannel('sms', config.gateways, guard),
    createGatewayChannel('incidentA', config.gateways, guard),
    createGatewayChannel('incidentB', config.gateways, guard),
    createFeedChannel(deps.feeds),
    createManagedChannel(deps.logger),
  ];
  const map = new Map(channels.map((channel) => [channel.type, channel]));
  for (const type of NOTIFICATION_TYPE_IDS) if (!map.has(type)) throw new Error(`no channel delivers ${type} notifications`);
  return map;
}

/** Closes what channels hold open (the email channels' SMTP pools); call after Deliverer.stop(). */
export function closeChannels(channels: ReadonlyMap<NotificationTypeId, Channel>): void {
  for (const channel of channels.values()) {
    const closable = channel as Channel & { close?: () => void };
    if (typeof closable.close === 'function') closable.close();
  }
}
