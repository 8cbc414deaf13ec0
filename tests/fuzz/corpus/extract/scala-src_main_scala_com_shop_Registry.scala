package com.shop

import com.shop.cart.Cart

object Registry {
  private val carts = scala.collection.mutable.ListBuffer.empty[Cart]

  def register(cart: Cart): Unit = {
    carts.append(cart)
    audit(cart)
  }

  private def audit(cart: Cart): Int = cart.price()
}
