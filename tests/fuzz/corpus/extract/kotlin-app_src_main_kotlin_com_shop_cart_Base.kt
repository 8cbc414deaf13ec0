package com.shop.cart

open class Base {
    open fun describe(): String = "base"
}

interface Priced {
    fun price(): Int
}
