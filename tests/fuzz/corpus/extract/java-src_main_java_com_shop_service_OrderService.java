package com.shop.service;

import java.util.HashMap;
import java.util.Map;

import com.shop.model.Order;

/** Keeps placed orders in memory. */
public class OrderService {
    private final Map<String, Order> placed = new HashMap<>();

    public void place(Order order) {
        for (Order.Line line : order.lines()) {
            var item = line.item;
            audit(item.label());
        }
        placed.put(order.describe(), order);
    }

    private void audit(String what) {
        System.err.println("placing " + what);
    }
}
