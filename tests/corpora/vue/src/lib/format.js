export function format(n) {
  return String(n).padStart(4)
}
