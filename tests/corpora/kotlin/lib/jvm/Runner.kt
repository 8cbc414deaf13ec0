package com.flow

import java.util.concurrent.*

// Task of com.flow in the other source root: its constructor, certain
class Timed : Task("timed") {
    override fun run(): Int = 3

    inner class Probe {
        fun run(): Int = 4
        // Timed's run, not Probe's
        fun outer(): Int = this@Timed.run()
    }

    fun check(p: Pump): Boolean {
        // !f(x) and f<T>(x) are calls
        if (!ready(1)) return false
        val list = make<Int>(2)
        // in apply's lambda fill() may be the receiver's: not certain
        p.apply { fill(2) }
        return list.isEmpty()
    }

    fun ready(n: Int): Boolean = n > 0
    fun fill(n: Int): Int = n
    fun <T> make(n: Int): List<T> = emptyList()
}
