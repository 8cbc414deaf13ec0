export function total(items) {
  return items.reduce((a, b) => a + b, 0)
}

export class Ticker {
  tick() {
    return Date.now()
  }
}
