package com.shop.cart

import com.shop.model.Item
import com.shop.util.Log

class Cart(private val log: Log) : Base(), Priced {
    private val items = mutableListOf<Item>()
    private var last: Item? = null

    fun add(item: Item) {
        items.add(item)
        log.write("add")
        item.describe()
        last = item
        this.total()
    }

    fun total(): Int = items.sumOf { it.price() }

    override fun price(): Int {
        last?.describe()
        return total()
    }

    override fun describe(): String {
        val note = StringBuilder().apply { this.append(super.describe()) }
        return note.toString()
    }

    companion object {
        fun empty(): Cart = Cart(Log("empty"))
    }
}
