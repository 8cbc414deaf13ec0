// A report whose calls are decided by the declared types of their
// receivers: a parameter property, a field, parameters, a local made
// with new, an untyped callback parameter.
import { Printer } from './printer';
import { Section } from './section';

export class Report {
  private readonly groups: Map<string, number> = new Map();
  private sections: Section[] = [];

  constructor(private readonly printer: Printer) {}

  // Delegates to the printer's method of the same name.
  getPattern(): string {
    return this.printer.getPattern();
  }

  // Map.get, not the repository's only get.
  count(key: string): number {
    return this.groups.get(key) ?? 0;
  }

  // The section's isValid, not this class's.
  isValid(section: Section | null): boolean {
    return section !== null && section.isValid();
  }

  add(section: Section): void {
    if (this.isValid(section))
      this.sections.push(section);
  }

  render(title: string, other?: Printer): string {
    const fallback = new Printer('%s');
    const body = this.sections.map((s) => s.isValid() ? s.title : '').join('\n');
    return (other ?? fallback).format(title.trim()) + fallback.format(body);
  }
}

// `this` declared by the function: a Section whatever it is called on,
// so this.isValid() is Section's.
export function checkSection(this: Section): boolean {
  return this.isValid();
}
