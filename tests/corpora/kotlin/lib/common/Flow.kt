package com.flow

import kotlin.coroutines.*

// A package whose files sit in two source roots (common/ and jvm/), not
// in directories named after it.
open class Task(val name: String) {
    open fun run(): Int = 1
}

class Pump {
    fun step(): Int = 2
}

fun Pump.drain(): Int = step()

fun <T> Continuation<T>.settle(value: T) {
    // the library's resume of Continuation, not Pump.resume below
    resume(value)
}

fun Pump.resume(x: Int): Int = x

// an extension of function types, called on a parameter of one: a
// candidate, not proved (kbx does not type the parameter)
fun <T> (() -> T).launchIn(n: Int): Int = n

fun go(block: () -> Int): Int = block.launchIn(1)

class Sink {
    fun accept(x: Int): Int = x
}

fun Any.accept(x: Int): Int = 0

// smart casts: where `this` is a Sink, accept(x) is Sink's member, not
// the extension: neither is proved
fun Any.offer(x: Int): Int = when (this) {
    is Sink -> accept(x)
    else -> 0
}

fun Any.take(x: Int): Int {
    if (this is Sink) return accept(x)
    return 0
}

fun Any.keep(x: Int): Int = accept(x)
