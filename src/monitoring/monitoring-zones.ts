// Owns the monitoring zones configuration: the zones remote checks poll from (three by default).
import { configError } from '../core/config-error.js';

/** A monitoring zone as GET /monitoring_zones lists it. */
export interface MonitoringZone {
  /** `mz` plus the zone identifier (spec 2.3); remote-check metrics are named `<id>.<metric>`. */
  readonly id: string;
  readonly label: string;
  readonly country_code: string;
  /** Addresses the zone's pollers connect from, so targets can allow them. */
  readonly source_ips: readonly string[];
}

/** The zones used when none are configured. */
export const DEFAULT_MONITORING_ZONES: readonly MonitoringZone[] = [
  { id: 'mzdfw', label: 'Dallas Fort Worth (DFW)', country_code: 'US', source_ips: [] },
  { id: 'mziad', label: 'Northern Virginia (IAD)', country_code: 'US', source_ips: [] },
  { id: 'mzord', label: 'Chicago (ORD)', country_code: 'US', source_ips: [] },
];

/** A zone id: `mz` then 1 to 30 letters or digits (it becomes a metric-name prefix, so no dots). */
export const ZONE_ID_PATTERN = /^mz[A-Za-z0-9]{1,30}$/;
/** Most zones a configuration may list. */
export const MONITORING_ZONES_MAX = 64;

/** Checks a zone configuration; throws CONFIG_INVALID naming the bad zone. Returns the zones sorted by id. */
export function resolveZones(zones: readonly MonitoringZone[] = DEFAULT_MONITORING_ZONES): readonly MonitoringZone[] {
  if (zones.length === 0 || zones.length > MONITORING_ZONES_MAX) throw configError('zones', `1 to ${MONITORING_ZONES_MAX} monitoring zones`, `${zones.length} zones`);
  const ids = new Set<string>();
  for (const zone of zones) {
    if (!ZONE_ID_PATTERN.test(zone.id)) throw configError('zones[].id', 'mz followed by 1 to 30 letters or digits', zone.id);
    if (ids.has(zone.id)) throw configError('zones[].id', 'each zone id once', `${zone.id} twice`);
    ids.add(zone.id);
  }
  return [...zones].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
