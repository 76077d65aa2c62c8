// Owns the Graphite plaintext listener inside `strata serve`: its two flags checked together, the listener on --host, the line scripts read, its /metrics counters.
import type { Logger } from 'pino';
import { systemClock } from '../core/clock.js';
import { StrataError } from '../core/errors.js';
import { addGraphiteMetrics } from '../http/graphite-metrics.js';
import type { StrataServer } from '../http/server.js';
import { GraphiteListener } from '../protocols/graphite-listener.js';
import type { Store } from '../store-types.js';

/** The flags of `strata serve` the Graphite listener reads. */
export interface ServeGraphiteFlags {
  readonly host: string;
  readonly graphitePort?: number;
  readonly graphiteTenant?: string;
}

/** Where and for whom the listener runs. */
export interface GraphiteListen {
  readonly port: number;
  readonly tenant: string;
}

/**
 * The listener's settings, undefined when --graphite-port is not given. A port without a tenant,
 * or a tenant without a port, is CONFIG_INVALID: the protocol names no tenant, and a tenant alone
 * would silently start nothing.
 */
export function graphiteListenOf(flags: ServeGraphiteFlags): GraphiteListen | undefined {
  if (flags.graphitePort === undefined) {
    if (flags.graphiteTenant === undefined) return undefined;
    throw new StrataError('CONFIG_INVALID', '--graphite-tenant is given without --graphite-port: give both to listen for Graphite plaintext, or neither', {
      option: 'graphitePort',
      accepted: 'a port when --graphite-tenant is given',
    });
  }
  if (flags.graphiteTenant === undefined) {
    throw new StrataError('CONFIG_INVALID', '--graphite-port needs --graphite-tenant: the Graphite protocol names no tenant, so every point is written for the one given', {
      option: 'graphiteTenant',
      accepted: 'a tenant when --graphite-port is given',
    });
  }
  return { port: flags.graphitePort, tenant: flags.graphiteTenant };
}

/** A started listener and the line that announces it. */
export interface ServedGraphite {
  readonly listener: GraphiteListener;
  /** Prints `graphite plaintext listening on tcp://host:port (tenant t)` and logs it. */
  announce(): void;
}

/**
 * Starts the Graphite listener on --host (undefined without --graphite-port) and adds its counters
 * to the server's /metrics. Rejects when the port cannot be bound.
 */
export async function startGraphite(app: StrataServer, store: Store, flags: ServeGraphiteFlags, logger: Logger): Promise<ServedGraphite | undefined> {
  const listen = graphiteListenOf(flags);
  if (listen === undefined) return undefined;
  const listener = new GraphiteListener({ store, tenant: listen.tenant, host: flags.host, port: listen.port, clock: systemClock, logger });
  const port = await listener.listen();
  addGraphiteMetrics(app.strata.metrics.registry, () => listener.stats());
  const host = flags.host.includes(':') ? `[${flags.host}]` : flags.host;
  return {
    listener,
    announce: () => {
      process.stdout.write(`graphite plaintext listening on tcp://${host}:${port} (tenant ${listen.tenant})\n`);
      logger.info({ host: flags.host, port, tenant: listen.tenant }, 'graphite plaintext listening');
    },
  };
}
