export function shout(s: string): string {
  return s + "!";
}
