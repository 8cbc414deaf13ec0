/*
 * package com.wrong.text; (a comment, not the declaration)
 */
package com.acme.text;

public class Strings {
    public static String pad(String s, int n) {
        return s + repeat(" ", n - s.length());
    }

    public static String center(String s, int n) {
        return pad(repeat(" ", (n - s.length()) / 2) + s, n);
    }

    static String repeat(String s, int n) {
        return s.repeat(n);
    }

    public static class Lines {
        public static int count(String s) {
            return s.split("\n").length;
        }
    }
}

class Helper {
    public static String trim(String s) {
        return s.trim();
    }
}
