const util = @import("util.zig");

pub const Item = struct {
    price: u32,

    const Self = @This();

    pub fn new(price: u32) Item {
        util.log("new item");
        return .{ .price = util.twice(price) / 2 };
    }

    pub fn label(self: Self) []const u8 {
        _ = self.describe();
        return "item";
    }

    pub fn describe(self: *const Self) u32 {
        return self.price;
    }
};
