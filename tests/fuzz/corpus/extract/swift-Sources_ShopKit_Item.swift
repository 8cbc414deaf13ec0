public struct Item {
    let name: String
    let cents: Int

    public func describe() -> String {
        name.shout()
    }

    func price() -> Int {
        cents
    }

    static func == (a: Item, b: Item) -> Bool {
        a.name == b.name
    }
}
