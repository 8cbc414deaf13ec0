package com.shop.model

import com.shop.util.shout

case class Item(name: String, cost: Int) {
  def describe(): String = name.shout()

  def price(): Int = cost
}
