package com.shop.model;

public class Item implements Priced {
    private final String name;
    private final long cents;

    public Item(String name, long cents) {
        this.name = name;
        this.cents = cents;
    }

    @Override
    public long price() {
        return cents;
    }

    public String label() {
        return name.toUpperCase();
    }

    public String describe() {
        return String.format("%s at %d", name, price());
    }
}
