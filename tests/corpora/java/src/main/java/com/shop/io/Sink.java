package com.shop.io;

public class Sink {
    public void put(String s) {}
}
