// Types a call gives: what a function says it returns, and what it says
// the parameters of the callback it takes are.
import { Printer } from './printer';
import { Section } from './section';

export function makePrinter(): Printer {
  return new Printer('%s');
}

// Returns its type parameter: no type a call of it could be sure of.
export function same<T>(x: T): T {
  return x;
}

// The callback's `this` is no parameter a caller passes.
export function eachSection(f: (this: unknown, s: Section, at: number) => void): void {
  f.call(undefined, new Section('', []), 0);
}

// After a spread, an argument's place among the parameters is unknown:
// here the function is the first argument, not the second.
export function after(first: (s: Section) => void, then?: (p: Printer) => void): void {}
export function spreadFirst(xs: []): void {
  after(...xs, (s) => {
    s.isValid();
  });
}

export function emit(): string {
  const p = makePrinter();
  eachSection((s) => {
    s.isValid();
  });
  eachSection(function (s, at) {
    s.isValid();
  });
  const r = same(p);
  r.getPattern();
  return makePrinter().format(p.format('x'));
}

// A class whose constructor takes a callback: what its constructor says
// the callback's parameter is.
export class Feed {
  constructor(private readonly each: (s: Section) => void) {}
}

export function feed(): Feed {
  return new Feed((s) => {
    s.isValid();
  });
}

// Overloads: the checker picks a signature by the arguments, and each
// may return another type, so a call's result proves no type.
export function pick(key: 'printer'): Printer;
export function pick(key: string): Printer | Section;
export function pick(key: string): Printer {
  return new Printer(key);
}

export function choose(): string {
  return pick('printer').format('x');
}
