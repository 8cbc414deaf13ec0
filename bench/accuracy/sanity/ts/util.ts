export function norm(s: string): string {
  return s.trim();
}
