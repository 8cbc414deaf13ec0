public final class Cart: Base, Priced {
    private let log: Log
    private var items: [Item] = []
    private var last: Item?

    public init(log: Log) {
        self.log = log
        super.init()
    }

    public func add(_ item: Item) {
        items.append(item)
        log.write("add")
        item.describe()
        last = item
        self.total()
    }

    public func price() -> Int {
        last?.describe()
        return total()
    }

    public override func describe() -> String {
        return super.describe() + self.log.tag
    }

    public static func empty() -> Cart {
        Cart(log: Log(tag: "empty"))
    }
}

extension Cart {
    func total() -> Int {
        items.reduce(0) { $0 + $1.price() }
    }
}
