// Owns `strata agent-ca export` and `strata agent-ca renew`: the agent CA of a data directory from the command line.
import { X509Certificate } from 'node:crypto';
import { Command, InvalidArgumentError, Option } from 'commander';
import { AGENT_CERT_HOSTS_DEFAULT, exportRootCertificate, renewServerCertificate } from '../agent/endpoint/agent-ca.js';
import { isCertificateHost } from '../agent/endpoint/certificate-issuer.js';
import { systemClock } from '../core/clock.js';
import { dataOption } from './cli-parsers.js';
import { printError } from './print-error.js';

/** Collects `--host` values (repeatable and variadic), refusing what cannot be a SAN. */
function collectHost(text: string, previous: string[] | undefined): string[] {
  if (!isCertificateHost(text)) throw new InvalidArgumentError(`${text} is neither a DNS name nor an IP address`);
  return [...(previous ?? []), text];
}

function exportCommand(): Command {
  return new Command('export')
    .description("print the agent root certificate (PEM) that agents trust (their --ca file); creates the CA when the data directory has none")
    .addOption(dataOption())
    .action((options: { data: string }) => {
      try {
        process.stdout.write(exportRootCertificate({ dataDir: options.data, clock: systemClock }));
      } catch (error) {
        printError(error);
      }
    });
}

function renewCommand(): Command {
  return new Command('renew')
    .description('issue a new agent endpoint server certificate (new key) under the existing root; a running server uses it after a restart')
    .addOption(dataOption())
    .addOption(new Option('--host <name...>', `DNS name or IP address agents connect to (repeatable; default ${AGENT_CERT_HOSTS_DEFAULT.join(' ')})`).argParser(collectHost))
    .action((options: { data: string; host?: string[] }) => {
      try {
        const tls = renewServerCertificate({ dataDir: options.data, hosts: options.host ?? AGENT_CERT_HOSTS_DEFAULT, clock: systemClock });
        const cert = new X509Certificate(tls.cert);
        process.stdout.write(
          `subjectAltName: ${cert.subjectAltName ?? ''}\n` +
            `expires: ${new Date(Date.parse(cert.validTo)).toISOString()}\n` +
            `sha256 fingerprint: ${cert.fingerprint256}\n` +
            'a running server uses the new certificate after a restart\n',
        );
      } catch (error) {
        printError(error);
      }
    });
}

/** The `strata agent-ca` command with its `export` and `renew` subcommands. */
export function agentCaCommand(): Command {
  return new Command('agent-ca')
    .description("manage the agent endpoint's certificate authority (root and server certificate in <data>/agent-ca)")
    .addCommand(exportCommand())
    .addCommand(renewCommand());
}
