package com.shop.io

// Readers of this project, nested in an object and in a trait.
trait Reader {
  def read(): String
}

object Defaults {
  object StringReader extends Reader {
    def read(): String = "default"
  }
}
