package com.shop

import com.shop.cart.Cart
import com.shop.model.Item
import com.shop.util.*

val fallback = Cart.empty()

fun main() {
    val cart = Cart(Log("main"))
    cart.add(Item("pen", 120))
    Registry.register(cart)
    println("done".shout())
    showAll(listOf(cart))
}

fun showAll(things: List<Any>) {
    things.forEach { thing -> (thing as Cart).total() }
    for (thing in things) {
        label(thing)
    }
}

fun label(value: Any?) = value.toString()
