package com.shop;

import java.util.logging.Logger;

import com.shop.model.Item;
import com.shop.model.Order;
import com.shop.service.OrderService;

/** Command-line entry point: places one order and prints it. */
public class App {
    private static final Logger LOG = Logger.getLogger(App.class.getName());

    public static void main(String[] args) {
        Order order = new Order("A-1001");
        order.add(new Item("tea", 450), 2);
        order.add(new Item("mug", 1200), 1);
        OrderService service = new OrderService();
        service.place(order);
        System.out.println(order.describe());
        LOG.info("done");
    }
}
