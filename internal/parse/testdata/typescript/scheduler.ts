import { EventEmitter } from "events";
import type { Job } from "./job";

/** How often the scheduler wakes up, in milliseconds. */
export const TICK_MS = 250;

export enum JobState {
  Pending,
  Running,
  Done,
}

export interface Clock {
  now(): number;
}

export type JobId = string;

/**
 * Runs jobs when they are due.
 */
export class Scheduler extends EventEmitter {
  private queue: Job[] = [];

  constructor(private readonly clock: Clock) {
    super();
  }

  // Queues a job; jobs with the same id replace each other.
  schedule(job: Job): JobId {
    this.queue = this.queue.filter((j) => j.id !== job.id);
    this.queue.push(job);
    return job.id;
  }

  async runDue(): Promise<number> {
    const now = this.clock.now();
    let ran = 0;
    for (const job of this.queue) {
      if (job.dueAt <= now) {
        // XXX: a failing job stops the whole batch
        await job.run();
        this.emit("done", job.id);
        ran++;
      }
    }
    return ran;
  }
}

export function describeJob(job: Job): string {
  return `job ${job.id} is due at ${formatTime(job.dueAt)}`;
}

function formatTime(ms: number): string {
  if (ms < 0) {
    throw new RangeError("time must not be negative");
  }
  return new Date(ms).toISOString();
}
