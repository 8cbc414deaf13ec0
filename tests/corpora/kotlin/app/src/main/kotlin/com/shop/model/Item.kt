package com.shop.model

import com.shop.util.shout

class Item(val name: String, private val cents: Int) {
    fun describe(): String = name.shout()

    fun price(): Int = cents
}
