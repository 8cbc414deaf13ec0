package com.shop.report;

/** Static helpers, called qualified by the class. */
public final class Formats {
    private Formats() {
    }

    public static boolean isEmpty(String s) {
        return s == null || s.length() == 0;
    }

    /** Calls itself: kbx callers and callees show it. */
    public static int digits(int n) {
        return n < 10 ? 1 : 1 + digits(n / 10);
    }
}
