package s

interface Shape {
    fun area(): Double
}

open class Base {
    open fun name(): String = "base"
    fun plain(x: Int): Int = x + 1
    fun plain(x: String): Int = x.length
}

/** doc */
@Suppress("x")
class Circle(val r: Double) : Base(), Shape {
    override fun area(): Double = 3.14 * r * r
    override fun name(): String = "circle"
    companion object {
        fun unit(): Circle = Circle(1.0)
        operator fun invoke(s: String): Circle = Circle(s.toDouble())
    }
}

data class P(val a: Int, val b: Int)

expect fun platform(): String

typealias C = Circle

fun helper(f: (Int) -> Int, x: Int): Int = f(x)

infix fun Int.plus2(y: Int): Int = this + y + 2

object Reg {
    fun put(k: String) {}
}
