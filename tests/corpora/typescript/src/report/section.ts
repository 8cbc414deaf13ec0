// A part of a report, with a check of the same name as Report's.
export class Section {
  constructor(readonly title: string, readonly lines: string[]) {}

  isValid(): boolean {
    return this.title.trim().length > 0 && this.lines.length > 0;
  }
}
