// The logger of version 1, still used by old scripts.
export function log(message: string): void {
  process.stdout.write(message + '\n');
}

export function sleep(ms: number): void {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    // busy wait: version 1 had no timers
  }
}
