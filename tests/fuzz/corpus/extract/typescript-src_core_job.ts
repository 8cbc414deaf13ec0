// What the queue runs, and the common base of the jobs it ships with.
export interface Named {
  readonly name: string;
}

export interface Runnable extends Named {
  run(): Promise<void>;
}

export abstract class Job implements Runnable {
  constructor(public readonly name: string) {}

  abstract run(): Promise<void>;

  protected describe(): string {
    return `${this.name} (${this.kind()})`;
  }

  protected kind(): string {
    return 'job';
  }
}
