package com

// The package's Money is Prices.Money: what files of com.shop, and those
// in packages inside it, call Money.
package object shop {
  type Money = Prices.Money
  val Money = Prices.Money
}
