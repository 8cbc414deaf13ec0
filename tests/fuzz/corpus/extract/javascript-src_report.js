// Printing of documents, plus the legacy formatter under another name.
export { formatMoney as legacyMoney } from './legacy/format.js';

export function logEvent(message) {
  console.error(message);
}

export function printAll(documents) {
  for (const doc of documents) {
    console.log(doc.render());
  }
  logEvent(`printed ${documents.length}`);
}
