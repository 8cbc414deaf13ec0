package com.shop.legacy

class Item(val name: String) {
  def describe(): String = name

  def this() = this("none")

  def price(): Int = 0

  def pick[T](first: T, other: Item): T = {
    other.price()
    first.price()
    first
  }
}

def label(thing: Item): String = thing.describe()

// another Money, which no import brings to com.shop.app
case class Money(amount: Double)
