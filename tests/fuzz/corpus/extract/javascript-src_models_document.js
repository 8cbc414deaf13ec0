// The base class of everything the shop can render.
export class Document {
  constructor(customer) {
    this.customer = customer;
    this.createdAt = Date.now();
  }

  kind() {
    return 'document';
  }

  header() {
    return `${this.kind()} for ${this.customer}`;
  }

  render() {
    logEvent('render document');
    return this.header();
  }
}
