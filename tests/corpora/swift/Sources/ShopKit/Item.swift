public struct Item {
    let name: String
    let cents: Int

    public func describe() -> String {
        name.shout()
    }

    func price() -> Int {
        cents
    }
}
