export function wrap(s, width) {
  return s.slice(0, width);
}
