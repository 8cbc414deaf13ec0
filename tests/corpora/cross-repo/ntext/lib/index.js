export function pad(s, n) {
  return s.padEnd(n);
}

export function shout(s) {
  return s.toUpperCase() + "!";
}

function hidden(s) {
  return s;
}
