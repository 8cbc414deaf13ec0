import { norm } from "./util";

export interface Pricer {
  price(): number;
}

export class Item implements Pricer {
  constructor(private name: string) {}
  price(): number {
    return norm(this.name).length;
  }
}

export class Cart {
  private items = new Map<string, Item>();
  add(it: Item): void {
    this.items.set("k", it);
  }
  get(key: string): Item | undefined {
    return this.items.get(key);
  }
  total(p: Pricer, f: () => number): number {
    this.add(new Item("x"));
    return p.price() + f() + this.get("k")!
      .price();
  }
}
