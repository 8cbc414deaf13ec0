package com.flow

interface Job {
    fun cancel(): Boolean
}

open class JobBase : Job {
    override fun cancel(): Boolean = true
    fun start(): Boolean = true
}

// start(mode, block) takes two arguments: start() is JobBase's
open class Coroutine : JobBase() {
    fun start(mode: Int, block: () -> Unit) = block()
    fun launch(): Boolean = start()
    fun launchWith(block: () -> Unit) = start(1, block)
    fun launchLater() = start(2) { }
}

// Job is a base one step nearer than JobBase: its cancel is declared
// there, but JobBase's runs
class Producer : Coroutine(), Job

fun stop(p: Producer): Boolean = p.cancel()

// an extension of a base class, called on a subclass: JobBase.finish
fun JobBase.finish(): Int = 5

fun done(p: Producer): Int = p.finish()
