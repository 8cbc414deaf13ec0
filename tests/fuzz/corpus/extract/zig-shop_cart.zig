const util = @import("util.zig");
const Item = @import("item.zig").Item;
usingnamespace @import("../helpers.zig");

fn sum(a: u32, b: u32) u32 {
    return a + b;
}

pub const Cart = struct {
    count: u32 = 0,
    last: ?Item = null,

    pub fn init() Cart {
        return .{};
    }

    pub fn add(self: *Cart, it: Item) void {
        self.count = sum(self.count, it.describe());
        self.last = it;
        util.log("added");
        _ = util.round(1);
    }

    pub fn total(self: *const Cart) u32 {
        return formatPrice(self.count);
    }

    pub fn describe(self: *const Cart) u32 {
        return total(self);
    }
};
