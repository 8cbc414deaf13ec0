package com.shop.model;

/** Anything with a price in cents. */
public interface Priced extends Comparable<Priced> {
    long price();

    @Override
    default int compareTo(Priced other) {
        return Long.compare(price(), other.price());
    }
}
