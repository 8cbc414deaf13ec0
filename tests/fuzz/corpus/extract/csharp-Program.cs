	// Command-line entry point (top-level statements).
using System;
using Shop.Models;
using Shop.Services;

var service = new OrderService();
var order = new Order("A-1001");
order.Add(new Item("tea", 450), 2);
order.Add(new Item("mug", 1200), 1);
service.Place(order);
Console.WriteLine(order.Describe());
