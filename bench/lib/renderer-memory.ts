import { readdirSync, readFileSync } from 'node:fs';

/**
 * Peak resident memory of the Chromium renderer processes this node process started: polls
 * VmRSS of every descendant launched with --type=renderer and, before stopping, reads each one's
 * VmHWM (the kernel's own high-water mark), so a peak between two polls is not missed.
 * The figure is the largest single renderer (the page and its workers live in one).
 */
export class RendererMemory {
  #peakBytes = 0;
  #timer: NodeJS.Timeout | null = null;

  start(intervalMs = 200): void {
    this.sample();
    this.#timer = setInterval(() => this.sample(), intervalMs);
    this.#timer.unref();
  }

  /** Stops polling; call while the browser is still open so VmHWM can be read. */
  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    this.sample('VmHWM');
  }

  get peakBytes(): number {
    return this.#peakBytes;
  }

  sample(field: 'VmRSS' | 'VmHWM' = 'VmRSS'): void {
    for (const pid of rendererPids()) {
      const kb = readStatusKb(pid, field);
      if (kb !== null) this.#peakBytes = Math.max(this.#peakBytes, kb * 1024);
    }
  }
}

function rendererPids(): number[] {
  const parents = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // "pid (comm) state ppid ...": comm may hold spaces or parentheses, so split after the last ')'.
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parents.set(Number(name), ppid);
    } catch {
      // the process ended while we looked
    }
  }
  const isOurs = (pid: number): boolean => {
    for (let p = parents.get(pid); p !== undefined && p > 1; p = parents.get(p)) if (p === process.pid) return true;
    return false;
  };
  return [...parents.keys()].filter((pid) => isOurs(pid) && isRenderer(pid));
}

function isRenderer(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('--type=renderer');
  } catch {
    return false;
  }
}

function readStatusKb(pid: number, field: string): number | null {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}
