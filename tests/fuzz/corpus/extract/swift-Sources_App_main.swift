import Foundation
import ShopKit

func showAll(_ things: [Any]) {
    for thing in things {
        (thing as AnyObject).describe()
    }
}

let cart = Cart(log: Log(tag: "main"))
cart.add(Item(name: "pen", cents: 120))
print("done".shout())
showAll([cart])
