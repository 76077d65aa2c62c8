// Owns `strata user create` and `strata user list`: managing identity users in a data directory.
import { Command, Option } from 'commander';
import { systemClock } from '../core/clock.js';
import { openIdentity, type IdentityService } from '../identity/identity-service.js';
import { ROLES } from '../identity/user-rules.js';
import { dataOption } from './cli-parsers.js';
import { printError } from './print-error.js';

function withIdentity(dir: string, work: (identity: IdentityService) => void): void {
  const identity = openIdentity({ dir, clock: systemClock });
  try {
    work(identity);
  } catch (error) {
    // Exit 2 for bad input (a malformed field), 1 otherwise (a taken username).
    printError(error);
  } finally {
    identity.close();
  }
}

function createCommand(): Command {
  return new Command('create')
    .description('create a user and print its API key (generated unless --api-key is given)')
    .addOption(dataOption())
    .requiredOption('--username <name>', 'username')
    .requiredOption('--tenant <tenant>', 'tenant (account) id')
    .option('--api-key <key>', 'API key to set (16 to 128 printable characters)')
    .addOption(new Option('--role <role>', 'role').choices([...ROLES]).default('admin'))
    .action((options: { data: string; username: string; tenant: string; apiKey?: string; role: string }) => {
      withIdentity(options.data, (identity) => {
        const { user, apiKey } = identity.createUser({
          username: options.username,
          tenant: options.tenant,
          role: options.role,
          ...(options.apiKey !== undefined ? { apiKey: options.apiKey } : {}),
        });
        process.stdout.write(`username: ${user.username}\ntenant: ${user.tenant}\nrole: ${user.role}\napiKey: ${apiKey}\n`);
      });
    });
}

function listCommand(): Command {
  return new Command('list')
    .description('list users (never their API keys)')
    .addOption(dataOption())
    .action((options: { data: string }) => {
      withIdentity(options.data, (identity) => {
        const rows = identity.listUsers().map((u) => [u.username, u.tenant, u.role, new Date(u.createdMs).toISOString()]);
        const table = [['USERNAME', 'TENANT', 'ROLE', 'CREATED'], ...rows];
        const widths = [0, 1, 2].map((c) => Math.max(...table.map((row) => (row[c] as string).length)));
        for (const row of table) process.stdout.write(`${row.map((cell, c) => (c < 3 ? cell.padEnd(widths[c] as number) : cell)).join('  ')}\n`);
      });
    });
}

/** The `strata user` command with its `create` and `list` subcommands. */
export function userCommand(): Command {
  return new Command('user').description('manage identity users').addCommand(createCommand()).addCommand(listCommand());
}
