// Prints a line after a pattern; its method names are also Ledger's.
export class Printer {
  constructor(pattern) {
    this.pattern = pattern;
  }

  getPattern() {
    return this.pattern;
  }

  format(text) {
    return this.pattern.replace('%s', text);
  }

  // The only method named get in the repository.
  get(key) {
    return key === 'pattern' ? this.pattern : undefined;
  }
}
