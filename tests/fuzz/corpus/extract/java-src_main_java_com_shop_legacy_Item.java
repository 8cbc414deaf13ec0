package com.shop.legacy;

/** Items as the first catalogue stored them; kept for old invoices. */
public class Item {
    private final String code;

    public Item(String code) {
        this.code = code;
    }

    public String label() {
        return code.trim();
    }

    public String describe() {
        return "legacy item " + label();
    }
}
