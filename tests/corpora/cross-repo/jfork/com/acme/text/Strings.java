package com.acme.text;

/* A fork of the library under the same package: a call of
 * com.acme.text.Strings.center is either's. */
public class Strings {
    public static String center(String s, int n) {
        return s;
    }
}
