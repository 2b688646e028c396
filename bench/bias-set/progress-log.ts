import { appendFileSync } from 'node:fs';

/** A measure's output line: vitest holds console output until a test ends, so progress also goes to $LOG when set. */
export function log(line: string): void {
  console.log(line);
  if (process.env.LOG) appendFileSync(process.env.LOG, `${line}\n`);
}
