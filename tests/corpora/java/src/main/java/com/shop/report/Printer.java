package com.shop.report;

/** Formats one value; its method names are also Report's. */
public class Printer {
    private final String pattern;

    public Printer(String pattern) {
        this.pattern = pattern;
    }

    public String getPattern() {
        return pattern;
    }

    public boolean isEmpty(String s) {
        return s.isEmpty();
    }

    /** The only method named get in the repository. */
    public Object get(String key) {
        return null;
    }
}
