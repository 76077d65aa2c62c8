// Owns the prometheus.yml texts the end-to-end tests hand to Debian's prometheus 2.42 (the README quotes them).

/** How a Prometheus authenticates to Strata: HTTP basic (username and API key) or a bearer token. */
export type PrometheusAuth = { readonly username: string; readonly apiKey: string } | { readonly token: string };

/** One Strata endpoint: the server's base URL, the tenant in the path and the credentials. */
export interface StrataEndpoint {
  readonly url: string;
  readonly tenant: string;
  readonly auth: PrometheusAuth;
}

// Values are single-quoted YAML scalars, so a quote inside is doubled.
const quoted = (text: string): string => `'${text.replaceAll("'", "''")}'`;

function authBlock(auth: PrometheusAuth, indent: string): string {
  if ('token' in auth) return `${indent}authorization:\n${indent}  credentials: ${quoted(auth.token)}\n`;
  return `${indent}basic_auth:\n${indent}  username: ${quoted(auth.username)}\n${indent}  password: ${quoted(auth.apiKey)}\n`;
}

/**
 * A writer: scrapes `target` (job `job`) every second and remote-writes every sample to each
 * endpoint, sending a batch at least once a second.
 */
export function writerConfig(target: string, job: string, endpoints: readonly StrataEndpoint[]): string {
  let text = `global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nscrape_configs:\n  - job_name: ${quoted(job)}\n    static_configs:\n      - targets: [${quoted(target)}]\nremote_write:\n`;
  for (const endpoint of endpoints) {
    text += `  - url: ${quoted(`${endpoint.url}/prometheus/${endpoint.tenant}/api/v1/write`)}\n`;
    text += authBlock(endpoint.auth, '    ');
    text += '    queue_config:\n      batch_send_deadline: 1s\n';
  }
  return text;
}

/**
 * A reader: scrapes nothing worth mentioning, keeps nothing locally, and answers PromQL from one
 * Strata endpoint (`read_recent`, so even the last minutes are read remotely).
 */
export function readerConfig(endpoint: StrataEndpoint): string {
  return (
    `global:\n  scrape_interval: 1h\nremote_read:\n  - url: ${quoted(`${endpoint.url}/prometheus/${endpoint.tenant}/api/v1/read`)}\n` +
    '    read_recent: true\n' +
    authBlock(endpoint.auth, '    ')
  );
}
