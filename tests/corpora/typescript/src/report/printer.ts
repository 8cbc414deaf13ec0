// Prints a line after a pattern; its method names are also Report's.
export class Printer {
  constructor(private readonly pattern: string) {}

  getPattern(): string {
    return this.pattern;
  }

  format(text: string): string {
    return this.pattern.replace('%s', text);
  }

  // The only method named get in the repository.
  get(key: string): string | undefined {
    return key === 'pattern' ? this.pattern : undefined;
  }
}
