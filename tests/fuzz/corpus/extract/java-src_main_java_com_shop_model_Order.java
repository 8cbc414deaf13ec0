package com.shop.model;

import java.util.ArrayList;
import java.util.List;

public class Order extends Entity implements Priced {
    /** One line of an order: an item and a quantity. */
    public static class Line {
        final Item item;
        final int quantity;

        Line(Item item, int quantity) {
            this.item = item;
            this.quantity = quantity;
        }

        long subtotal() {
            return item.price() * quantity;
        }
    }

    private final List<Line> lines = new ArrayList<>();

    public Order(String id) {
        super(id);
    }

    public void add(Item item, int quantity) {
        lines.add(new Line(item, quantity));
        touch();
    }

    public List<Line> lines() {
        return lines;
    }

    @Override
    public long price() {
        this.validate();
        return total();
    }

    long total() {
        return lines.stream().mapToLong(Line::subtotal).sum();
    }

    public String describe() {
        return id + ": " + lines.size() + " lines, " + total() + " cents";
    }
}
