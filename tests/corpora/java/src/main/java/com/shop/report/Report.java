package com.shop.report;

import java.util.List;
import java.util.Map;

/**
 * A report.  Its calls are decided by their receivers: a field of type
 * Printer, a class-qualified call, a java.util.Map, a String.
 */
public class Report {
    private final Printer printer;
    private final Map<String, Integer> groups;

    public Report(Printer printer, Map<String, Integer> groups) {
        this.printer = printer;
        this.groups = groups;
    }

    /** Delegates to the printer's method of the same name. */
    public String getPattern() {
        return printer.getPattern();
    }

    /** Qualified by another class. */
    public boolean isEmpty(String s) {
        return Formats.isEmpty(s);
    }

    /** Map.get, not the repository's only get. */
    public int count(String key) {
        Integer n = groups.get(key);
        return n == null ? 0 : n;
    }

    public String render(List<String> lines) {
        StringBuilder sb = new StringBuilder();
        for (String line : lines) {
            sb.append(line.trim());
        }
        return String.format(getPattern(), sb.toString());
    }
}
