package s

actual fun platform(): String = "jvm"

class Sq(val s: Double) : Shape {
    override fun area(): Double = s * s
}

fun main() {
    val c = Circle(2.0)
    val sh: Shape = c
    sh.area()
    c.name()
    c.plain(1)
    c.plain("a")
    Circle.unit()
    Circle("3")
    val p = P(1, 2)
    p.copy(a = 3)
    platform()
    C(1.0)
    helper({ it + 1 }, 3)
    val g: (Int) -> Int = { it }
    g(1)
    g.invoke(2)
    1 plus2 2
    val m = mapOf(1 to 2)
    m.get(1)
    listOf(1).map { it + 1 }
    Reg.put("k")
    Sq(1.0).area()
    val o = object : Base() {}
    o.plain(2)
    println(
        c.name())
}

fun more(b: Base, s: Shape) {
    b.name()
    s.area()
    b.plain(1).let { it + 1 }
}
