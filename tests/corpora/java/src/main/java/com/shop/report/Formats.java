package com.shop.report;

/** Static helpers, called qualified by the class. */
public final class Formats {
    private Formats() {
    }

    public static boolean isEmpty(String s) {
        return s == null || s.length() == 0;
    }
}
