import { pad, shout as loud } from "@acme/text";
import { wrap } from "@acme/text/lib/wrap";

export function row(cells: string[]): string {
  return cells.map((c) => pad(c, 10)).join("|");
}

export function heading(s: string): string {
  return loud(wrap(s, 20));
}
