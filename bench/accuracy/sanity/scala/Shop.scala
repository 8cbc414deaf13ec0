package shop

trait Pricer {
  def price(): Int
}

case class Item(name: String, cents: Int) extends Pricer {
  def price(): Int = cents
}

class Cart {
  private var items: List[Item] = Nil
  def add(i: Item): Cart = { items = i :: items; this }
  def add(name: String): Cart = add(Item(name, 1))
  def merge(o: Cart): Cart = this
  def size: Int = items.length
}

object Cart {
  def apply(): Cart = new Cart()
}

object Main {
  def run(p: Pricer, f: Int => Int): Int = {
    val c = Cart().add("x")
    val d = new Cart
    c merge d
    val t = new Pricer { def price(): Int = 2 }
    for (i <- List(1, 2)) yield i
    c.size + p.price() + f(3) + t.price()
  }
}
