package com.shop
package app

import com.shop.io.Codec.{Buffer, decode}

object Main {
  def run(): String = {
    val b = new Buffer("x")
    val price = Money(5)
    format(decode(b.next()))
  }
}
