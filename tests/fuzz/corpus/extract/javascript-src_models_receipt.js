import { Document } from './document.js';
import { formatMoney } from '../legacy/format.js';

export class Receipt extends Document {
  constructor(customer, paid) {
    super(customer);
    this.paid = paid;
  }

  kind() {
    return 'receipt';
  }

  render() {
    return `${this.header()}: ${formatMoney(this.paid)}`;
  }
}
