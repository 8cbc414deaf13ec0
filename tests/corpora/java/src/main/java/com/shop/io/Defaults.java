package com.shop.io;

/* Readers of this project, one nested in a class. */
public class Defaults {
    public static class StringReader {
        public int read() { return 0; }
    }
}
