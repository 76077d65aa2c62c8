// Owns showing the bench's progress: cli-progress bars on a terminal, plain lines otherwise.
import cliProgress from 'cli-progress';
import type { ProgressMessage } from './child-io.js';

/** Progress of the whole bench: numbered steps, each with the phases its child reports. */
export interface BenchProgress {
  /** Starts step `label` (one child process or in-process measurement). */
  step(label: string): void;
  /** A phase update from the current step's child. */
  phase(message: ProgressMessage): void;
  /** A line of output that must not be overwritten by the bars. */
  log(line: string): void;
  stop(): void;
}

function plainProgress(totalSteps: number): BenchProgress {
  let index = 0;
  return {
    step(label) {
      index++;
      process.stdout.write(`[${index}/${totalSteps}] ${label}\n`);
    },
    phase(message) {
      // Only the start of each phase: a line per batch would drown the log.
      if (message.done === 0) process.stdout.write(`    ${message.phase}\n`);
    },
    log(line) {
      process.stdout.write(`${line}\n`);
    },
    stop() {},
  };
}

function barProgress(totalSteps: number): BenchProgress {
  const multi = new cliProgress.MultiBar(
    { format: ' {bar} {value}/{total} {label}', hideCursor: true, clearOnComplete: false, autopadding: true },
    cliProgress.Presets.shades_classic,
  );
  const steps = multi.create(totalSteps, 0, { label: 'steps' });
  const phase = multi.create(1, 0, { label: '' });
  let started = 0;
  return {
    step(label) {
      if (started > 0) steps.increment();
      started++;
      steps.update({ label });
      phase.setTotal(1);
      phase.update(0, { label: '' });
    },
    phase(message) {
      phase.setTotal(Math.max(1, message.total));
      phase.update(message.done, { label: message.phase });
    },
    log(line) {
      multi.log(`${line}\n`);
    },
    stop() {
      steps.update(totalSteps, { label: 'done' });
      multi.stop();
    },
  };
}

/** Bars when stdout is a terminal, plain lines when it is a file or a pipe. */
export function createProgress(totalSteps: number): BenchProgress {
  return process.stdout.isTTY === true ? barProgress(totalSteps) : plainProgress(totalSteps);
}
