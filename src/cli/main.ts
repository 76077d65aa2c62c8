#!/usr/bin/env node
// Owns the strata command line: the one entry point, and the only reader of argv and env.
import { Command } from 'commander';
import { agentCaCommand } from './agent-ca-command.js';
import { agentCommand } from './agent-command.js';
import { agentUpdateCommand } from './agent-update-command.js';
import { checkCommand } from './check-command.js';
import { dnsCommand } from './dns-command.js';
import { ingestCommand } from './ingest-command.js';
import { planCommand } from './plan-command.js';
import { queryCommand } from './query-command.js';
import { replayCommand } from './replay-command.js';
import { serveCommand } from './serve-command.js';
import { userCommand } from './user-command.js';
import { workloadCommand } from './workload-command.js';

const program = new Command('strata')
  .description('Strata: an embeddable metrics store with rollups, and a monitoring API server')
  .showHelpAfterError();
program.addCommand(serveCommand());
program.addCommand(userCommand());
program.addCommand(ingestCommand());
program.addCommand(queryCommand());
program.addCommand(replayCommand());
program.addCommand(planCommand());
program.addCommand(dnsCommand());
program.addCommand(checkCommand());
program.addCommand(agentCommand());
program.addCommand(agentCaCommand());
program.addCommand(agentUpdateCommand());
program.addCommand(workloadCommand());
await program.parseAsync(process.argv);
