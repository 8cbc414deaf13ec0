package com.flow

interface Job {
    fun cancel(): Boolean
}

open class JobBase : Job {
    override fun cancel(): Boolean = true
}

open class Coroutine : JobBase()

// Job is a base one step nearer than JobBase: its cancel is declared
// there, but JobBase's runs
class Producer : Coroutine(), Job

fun stop(p: Producer): Boolean = p.cancel()

// an extension of a base class, called on a subclass: JobBase.finish
fun JobBase.finish(): Int = 5

fun done(p: Producer): Int = p.finish()
