import { Document } from './document.js';
import { formatMoney, pad } from '../format.js';

export class Invoice extends Document {
  constructor(customer, lines) {
    super(customer);
    this.lines = lines;
  }

  kind() {
    return 'invoice';
  }

  total() {
    function sum(values) {
      return values.reduce((a, b) => a + b, 0);
    }
    return sum(this.lines);
  }

  render() {
    const rows = this.lines.map((amount) => pad(formatMoney(amount), 12));
    const out = [this.header(), ...rows];
    return out.join('\n');
  }
}
