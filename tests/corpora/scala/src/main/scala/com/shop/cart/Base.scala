package com.shop.cart

abstract class Base {
  def describe(): String = "base"
}

trait Priced {
  def price(): Int
}
