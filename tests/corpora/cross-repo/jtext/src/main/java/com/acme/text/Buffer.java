package com.acme.text;

public class Buffer {
    private final StringBuilder text = new StringBuilder();

    public Buffer append(String s) {
        text.append(s);
        return this;
    }
}
