package com.shop.io

object Codec {
  class Buffer(text: String) {
    def next(): String = text
  }

  def decode(s: String): String = s.reverse
}
