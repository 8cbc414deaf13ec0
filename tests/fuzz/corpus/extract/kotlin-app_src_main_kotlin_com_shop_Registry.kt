package com.shop

import com.shop.cart.Cart

object Registry {
    private val carts = mutableListOf<Cart>()

    fun register(cart: Cart) {
        carts.add(cart)
        audit(cart)
    }

    private fun audit(cart: Cart) {
        cart.price()
    }
}
