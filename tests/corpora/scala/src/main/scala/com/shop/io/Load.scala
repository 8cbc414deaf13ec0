package com.shop.io

import java.io._

object Load {
  // java.io.StringReader by the wildcard import, not Defaults.StringReader
  def open(s: String) = new StringReader(s)

  // a java.io.Reader, whatever this package's Reader is
  def first(in: java.io.Reader): Int = in.read()

  // this package's Reader, declared in the same package
  def text(r: Reader): String = r.read()
}
