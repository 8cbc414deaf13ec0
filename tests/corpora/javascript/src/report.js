// Printing of documents, plus the legacy formatter under another name.
export { formatMoney as legacyMoney } from './legacy/format.js';

export function logEvent(message) {
  console.error(message);
}

// The documents worth printing, one at a time.
function* printable(documents) {
  for (const doc of documents) {
    if (doc) yield doc;
  }
}

export function printAll(documents) {
  for (const doc of printable(documents)) {
    console.log(doc.render());
  }
  logEvent(`printed ${documents.length}`);
}
