package com.shop

import com.shop.cart.{Cart, Priced => P}
import com.shop.model.Item
import com.shop.util._

val fallback = Cart.empty()

@main def run(): Unit =
  val cart = new Cart(new Log())
  cart.add(Item("pen", 2))
  Registry.register(cart)
  println("done".shout())
  showAll(List(cart))

def showAll(things: List[P]): Unit =
  for thing <- things do
    thing.asInstanceOf[Cart].total()
    label(thing)

def label(value: Any): String = value.toString
