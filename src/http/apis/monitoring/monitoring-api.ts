// Owns registering every monitoring API route under /monitoring/v1.0/:tenant.
import type { FastifyInstance } from 'fastify';
import type { ServerContext } from '../../server-context.js';
import { registerAgentRoutes } from './agent-routes.js';
import { registerChangelogRoutes } from './changelog-routes.js';
import { registerCheckMetricRoutes } from './check-metric-routes.js';
import { registerEntityRoutes } from './entity-routes.js';
import { registerNotificationRoutes } from './notification-routes.js';

/** Registers the monitoring API. */
export function registerMonitoringRoutes(app: FastifyInstance, context: ServerContext): void {
  const monitoring = context.monitoring;
  registerEntityRoutes(app, context, monitoring);
  registerCheckMetricRoutes(app, context, monitoring);
  registerNotificationRoutes(app, context, monitoring);
  registerAgentRoutes(app, context, monitoring);
  registerChangelogRoutes(app, context, monitoring);
}
