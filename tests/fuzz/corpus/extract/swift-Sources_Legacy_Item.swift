struct Item {
    func describe() -> String {
        "old"
    }

    func price() -> Int {
        0
    }
}

func label(_ thing: Item) -> String {
    thing.describe()
}
