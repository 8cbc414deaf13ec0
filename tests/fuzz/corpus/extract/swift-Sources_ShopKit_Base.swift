open class Base {
    open func describe() -> String {
        return "base"
    }
}

public protocol Priced {
    func price() -> Int
}
