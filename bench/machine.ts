// Owns describing the machine a benchmark ran on, for the results files.
import { cpus, loadavg, platform, release, totalmem } from 'node:os';

/** CPU, cores, memory, OS, Node and V8 of this machine, and its load average when asked. */
export function machineInfo(): Record<string, unknown> {
  const cpu = cpus();
  return {
    cpuModel: cpu[0]?.model ?? 'unknown',
    cores: cpu.length,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    platform: `${platform()} ${release()}`,
    node: process.version,
    v8: process.versions.v8,
    loadAverage: loadavg(),
  };
}
