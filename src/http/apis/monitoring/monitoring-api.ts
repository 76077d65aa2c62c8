// Owns the monitoring API under /monitoring/v1.0/{tenant}: its routes, its body schemas' errors, and the monitoring error shape.
import type { FastifyInstance } from 'fastify';
import { schemaFieldError } from '../../../monitoring/monitoring-errors.js';
import type { ApiErrorShaper } from '../../api-errors.js';
import type { ApiPlugin } from '../../api-plugin.js';
import { METRICS_ERROR_SCHEMA } from '../../error-schemas.js';
import type { ServerContext } from '../../server-context.js';
import { parameterError } from '../../validation-failure.js';
import { metricsErrors } from '../metrics/metrics-api.js';
import { registerAccountRoutes } from './account-routes.js';
import { registerAgentRoutes } from './agent-routes.js';
import { registerAuditRoutes } from './audit-routes.js';
import { registerBacktestRoutes } from './backtest-routes.js';
import { registerChangelogRoutes } from './changelog-routes.js';
import { registerCheckMetricRoutes } from './check-metric-routes.js';
import { registerControlRoutes } from './control-routes.js';
import { registerDeliveryRoutes } from './delivery-routes.js';
import { registerEntityRoutes } from './entity-routes.js';
import { registerHistoryRoutes } from './history-routes.js';
import { registerLimitRoutes } from './limit-routes.js';
import { MONITORING_PREFIX } from './monitoring-http.js';
import { registerNotificationRoutes } from './notification-routes.js';
import { registerOverviewRoutes } from './overview-routes.js';
import { registerSuppressionRoutes } from './suppression-routes.js';
import { registerTestRoutes } from './test-routes.js';

/**
 * The monitoring shape ({type, code, message, details, txnId}, as the metrics API's); a body that
 * breaks its schema names the field at fault as the reference does ("Validation error for key"),
 * a bad page size is invalidLimit.
 */
const monitoringErrors: ApiErrorShaper = {
  body: metricsErrors.body,
  fromValidation: (failure) => (failure.part === 'body' ? schemaFieldError(failure.errors) : parameterError(failure, { limit: 'LIST_LIMIT_INVALID' })),
};

/** The monitoring API (spec section 4, operations 1 to 9, and the CRUD of its objects). */
export const monitoringApi: ApiPlugin = {
  name: 'monitoring',
  prefix: MONITORING_PREFIX,
  errorSchema: METRICS_ERROR_SCHEMA,
  errors: monitoringErrors,
  register(scope: FastifyInstance, context: ServerContext): void {
    const monitoring = context.monitoring;
    // The rate limits and the audit trail are hooks over the whole scope: registered first.
    registerLimitRoutes(scope, context, monitoring);
    registerAuditRoutes(scope, context, monitoring);
    registerEntityRoutes(scope, context, monitoring);
    registerCheckMetricRoutes(scope, context, monitoring);
    registerNotificationRoutes(scope, context, monitoring);
    registerAgentRoutes(scope, context, monitoring);
    registerChangelogRoutes(scope, context, monitoring);
    registerDeliveryRoutes(scope, context, monitoring);
    registerAccountRoutes(scope, context, monitoring);
    registerOverviewRoutes(scope, context, monitoring);
    registerTestRoutes(scope, context, monitoring);
    registerSuppressionRoutes(scope, context, monitoring);
    registerHistoryRoutes(scope, context, monitoring);
    registerBacktestRoutes(scope, context, monitoring);
    registerControlRoutes(scope, context, monitoring);
  },
};
