package com.shop.legacy

class Item {
    fun describe() = "old"

    fun price() = 0
}

fun label(thing: Item) = thing.describe()
