import { Job } from './job';
import { log } from '../util/log';
import * as mail from '../util/mail';

export class EmailJob extends Job {
  constructor(private readonly to: string) {
    super('email');
  }

  async run(): Promise<void> {
    const body = this.describe();
    await mail.send(this.to, body);
    sleep(10);
  }
}

export class ReportJob extends Job {
  private readonly days: number;

  constructor(days: number) {
    super('report');
    this.days = days;
  }

  protected kind(): string {
    return 'report';
  }

  async run(): Promise<void> {
    log(this.describe());
    const rows = collect(this.days);
    log(`${rows.length} rows`);
  }
}

function collect(days: number): number[] {
  return Array.from({ length: days }, (_, i) => i);
}
