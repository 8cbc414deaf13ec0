package com.shop

object Prices {
  case class Money(cents: Int)
}
