// Entry point: builds an invoice and a receipt, prints them and writes a
// summary file.
import fs from 'fs';
import { Invoice } from './models/invoice.js';
import { Receipt } from './models/receipt.js';
import { formatMoney } from './format.js';
import * as report from './report.js';

export function main(argv) {
  const invoice = new Invoice('ACME', [120, 80.5]);
  const receipt = new Receipt('ACME', 200);
  report.printAll([invoice, receipt]);
  const summary = formatMoney(invoice.total());
  fs.writeFileSync(argv[2] || 'summary.txt', summary);
  return summary;
}

main(process.argv);
