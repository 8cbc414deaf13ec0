pub const Cart = struct {
    items: [8]u32 = undefined,
    n: usize = 0,

    pub fn init() Cart {
        return .{};
    }

    pub fn add(self: *Cart, x: u32) void {
        self.items[self.n] = x;
        self.n += 1;
    }

    pub fn total(self: *const Cart) u32 {
        var t: u32 = 0;
        for (self.items[0..self.n]) |x| t += x;
        return t;
    }
};

pub fn Queue(comptime T: type) type {
    return struct {
        slots: [4]T = undefined,
        head: usize = 0,
        const Q = @This();

        pub fn make() Q {
            return Q{};
        }

        fn reserve(q: *const Q) bool {
            return q.head < q.slots.len;
        }

        pub fn put(q: *Q, v: T) void {
            if (!q.reserve()) return;
            q.slots[q.head] = v;
            q.head += 1;
        }
    };
}
