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
