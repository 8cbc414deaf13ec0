// Money formatting for current documents.
const CURRENCY = 'EUR';

export function pad(text, width) {
  return String(text).padStart(width);
}

export function formatMoney(amount) {
  return pad(amount.toFixed(2), 10) + ' ' + CURRENCY;
}

export const roundCents = (amount) => Math.round(amount * 100) / 100;

// Timers a test can replace; each calls the global function of its name.
export const timers = {
  setTimeout(fn, ms) {
    return setTimeout(fn, ms);
  },
};
