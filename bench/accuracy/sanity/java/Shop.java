package shop;

import java.util.HashMap;
import java.util.Map;

abstract class Pricer {
    abstract int price();
}

class Item extends Pricer {
    private final String name;
    Item(String name) { this.name = name; }
    Item() { this("none"); }
    int price() { return name.length(); }
    String get(String key) { return key; }
}

class Cart {
    private final Map<String, Item> items = new HashMap<>();
    void add(Item it) { items.put("k", it); }
    void add(String name) { add(new Item(name)); }
    Item get(String key) { return items.get(key); }
    int total(Pricer p) {
        add("x");
        return p.price() + get("x")
            .price();
    }
}
