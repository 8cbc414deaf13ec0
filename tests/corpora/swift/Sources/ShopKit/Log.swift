public final class Log {
    let tag: String

    public init(tag: String) {
        self.tag = tag
    }

    func write(_ message: String) {
        print(tag + message.shout())
    }
}

extension String {
    func shout() -> String {
        self.uppercased()
    }
}
