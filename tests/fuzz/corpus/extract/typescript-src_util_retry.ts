// Retrying with exponential backoff.
export namespace Retry {
  export namespace Policy {
    export function delayFor(attempt: number): number {
      return Math.min(1000, 2 ** attempt * 10);
    }
  }

  export async function withBackoff<T>(fn: () => Promise<T>, attempts: number): Promise<T> {
    for (let i = 0; ; i++) {
      try {
        return await fn();
      } catch (err) {
        if (i + 1 >= attempts) throw err;
        sleep(Policy.delayFor(i));
      }
    }
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
