package com.shop.util

extension (s: String)
  def shout(): String = s.toUpperCase()

class Log {
  def write(message: String): Unit = println(message.shout())
}

enum Level {
  case Info, Warn
}

object Level {
  def parse(text: String): Level = Level.valueOf(text.shout())
}
