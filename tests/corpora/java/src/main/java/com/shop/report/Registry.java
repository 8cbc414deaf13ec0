package com.shop.report;

import static com.shop.report.Formats.isEmpty;

import java.util.ArrayList;
import java.util.List;

/**
 * Code outside methods: a static field's initialiser and a static block
 * (credited to Registry.<clinit>), an instance field's initialiser (to
 * Registry.<init>); a statically imported method; an inner class calling
 * a method of its enclosing class.
 */
public class Registry {
    static final List<String> NAMES = defaults();
    static {
        warmUp();
    }

    private final List<String> seen = new ArrayList<>();

    private static List<String> defaults() {
        return new ArrayList<>();
    }

    private static void warmUp() {
    }

    boolean valid(String name) {
        return !isEmpty(name);
    }

    class Entry {
        boolean ok(String name) {
            return valid(name);
        }
    }
}
