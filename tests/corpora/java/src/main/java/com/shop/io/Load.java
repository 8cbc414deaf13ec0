package com.shop.io;

import java.io.*;
import java.util.*;

public class Load {
    /* java.io.StringReader by the wildcard import: not certainly
     * Defaults.StringReader, which no import brings here */
    Object open(String s) {
        return new StringReader(s);
    }

    /* Sink of this package, whatever the wildcard imports bring */
    void save(String s) {
        Sink sink = new Sink();
        sink.put(s);
    }
}
