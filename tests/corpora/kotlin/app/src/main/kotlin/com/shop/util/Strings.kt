package com.shop.util

fun String.shout(): String = this.uppercase()

class Log(private val tag: String) {
    fun write(message: String) {
        println(tag + message.shout())
    }
}
