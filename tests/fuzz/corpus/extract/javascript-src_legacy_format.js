// Formatting of the first release, kept for receipts printed before 2.0.
export function formatMoney(amount) {
  return '$' + amount;
}

export function logEvent(message) {
  console.log('[legacy]', message);
}
