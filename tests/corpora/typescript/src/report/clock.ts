// A clock for tests: two methods with a helper each named advanceFrameBy,
// visible only inside its method, and a function of that name for others.
export class FakeClock {
  now = 0;

  tick(ms: number): number {
    function advanceFrameBy(n: number): number {
      return n + 1;
    }
    this.now += advanceFrameBy(ms);
    return this.now;
  }

  flush(): number {
    function advanceFrameBy(n: number): number {
      return n * 2;
    }
    const run = (n: number): number => advanceFrameBy(n);
    return run(16);
  }
}

export function advanceFrameBy(clock: FakeClock, ms: number): number {
  return clock.tick(ms);
}

export function step(clock: FakeClock): number {
  return advanceFrameBy(clock, 1);
}
