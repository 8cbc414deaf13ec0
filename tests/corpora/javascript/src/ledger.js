// A ledger whose calls are decided by their receivers: a field assigned
// new Printer() in the constructor, a Map, a local made with new, a
// parameter of unknown type.
import { Printer } from './printer.js';

export class Ledger {
  constructor(pattern) {
    this.printer = new Printer(pattern);
    this.counts = new Map();
    this.last = null;
  }

  // Delegates to the printer's method of the same name.
  getPattern() {
    return this.printer.getPattern();
  }

  // Map.get, not the repository's only get.
  count(key) {
    return this.counts.get(key) || 0;
  }

  print(entry) {
    const line = new Printer('> %s');
    console.log(line.format(entry.describe()));
    this.last = entry;
  }
}
