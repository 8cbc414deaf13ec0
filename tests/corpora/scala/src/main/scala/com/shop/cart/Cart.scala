package com.shop.cart

import com.shop.model.Item
import com.shop.util.Log

class Cart(val log: Log) extends Base with Priced {
  private var items: List[Item] = Nil
  private var last: Option[Item] = None
  log.write("open")

  def add(item: Item): Unit = {
    log.write(item.describe())
    items = item :: items
    this.total()
  }

  def total(): Int = items.map(i ⇒ i.price()).sum

  def merge(other: Cart): Cart = this

  def combine(a: Cart, b: Cart): Cart = a merge b

  override def price(): Int = total()

  override def describe(): String = {
    val sb = new StringBuilder()
    sb.append(super.describe())
    sb.toString
  }
}

object Cart {
  def empty(): Cart = new Cart(new Log())
}
