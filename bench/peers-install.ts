// Owns making the peer servers available: finding victoria-metrics and influxd, installing the Debian packages when missing, reading their versions.
import { execFileSync, spawnSync } from 'node:child_process';

/** A peer server binary and the Debian package that provides it. */
export interface PeerBinary {
  readonly binary: string;
  readonly debianPackage: string;
  /** The arguments that make the binary print its version. */
  readonly versionArgs: readonly string[];
}

/** VictoriaMetrics single-node, as Debian 12 packages it. */
export const VICTORIA_METRICS: PeerBinary = { binary: 'victoria-metrics', debianPackage: 'victoria-metrics', versionArgs: ['-version'] };
/** InfluxDB 1.x, as Debian 12 packages it. */
export const INFLUXDB: PeerBinary = { binary: 'influxd', debianPackage: 'influxdb', versionArgs: ['version'] };

/** What `ensurePeerBinaries` found or did for one binary. */
export interface PeerVersion {
  readonly binary: string;
  /** Absolute path `which` found. */
  readonly path: string;
  /** What the binary printed for its version arguments (Debian's VictoriaMetrics build prints nothing). */
  readonly versionOutput: string;
  /** dpkg's version of the package, or 'not a Debian package'. */
  readonly packageVersion: string;
  readonly installedNow: boolean;
}

function which(binary: string): string | undefined {
  const result = spawnSync('which', [binary], { encoding: 'utf8' });
  const path = result.stdout.trim();
  return result.status === 0 && path !== '' ? path : undefined;
}

function packageVersion(debianPackage: string): string {
  const result = spawnSync('dpkg-query', ['-W', '-f', '${Version}', debianPackage], { encoding: 'utf8' });
  return result.status === 0 && result.stdout.trim() !== '' ? result.stdout.trim() : 'not a Debian package';
}

function versionOutput(path: string, args: readonly string[]): string {
  const result = spawnSync(path, [...args], { encoding: 'utf8' });
  return `${result.stdout ?? ''}${result.stderr ?? ''}`.trim();
}

/**
 * Installs the packages of the missing binaries with apt-get (as root; the package index is
 * refreshed once when the first attempt fails), printing what it installs.
 */
function install(missing: readonly PeerBinary[], log: (line: string) => void): void {
  const packages = missing.map((m) => m.debianPackage);
  if (process.getuid?.() !== 0) throw new Error(`${missing.map((m) => m.binary).join(', ')} missing and not root: install ${packages.join(' ')} with apt-get`);
  log(`installing ${packages.join(' ')} (apt-get install -y) because ${missing.map((m) => m.binary).join(', ')} is not on PATH`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const attempt = (): boolean => spawnSync('apt-get', ['install', '-y', ...packages], { stdio: 'inherit', env }).status === 0;
  if (attempt()) return;
  log('apt-get install failed; running apt-get update once and retrying');
  execFileSync('apt-get', ['update'], { stdio: 'inherit', env });
  if (!attempt()) throw new Error(`apt-get install -y ${packages.join(' ')} failed`);
}

/** Makes sure every binary is on PATH (installing what is missing) and returns their paths and versions. */
export function ensurePeerBinaries(binaries: readonly PeerBinary[], log: (line: string) => void): PeerVersion[] {
  const missing = binaries.filter((b) => which(b.binary) === undefined);
  if (missing.length > 0) install(missing, log);
  return binaries.map((b) => {
    const path = which(b.binary);
    if (path === undefined) throw new Error(`${b.binary} is still not on PATH after installing ${b.debianPackage}`);
    return { binary: b.binary, path, versionOutput: versionOutput(path, b.versionArgs), packageVersion: packageVersion(b.debianPackage), installedNow: missing.includes(b) };
  });
}
