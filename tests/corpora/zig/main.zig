const std = @import("std");
const cart = @import("shop/cart.zig");
const Item = @import("shop/item.zig").Item;
const legacy = @import("legacy/item.zig");

fn show(thing: anytype) void {
    std.debug.print("{s}\n", .{thing.label()});
    _ = thing.describe();
}

pub fn main() void {
    var c = cart.Cart.init();
    const it: Item = Item.new(3);
    c.add(it);
    show(it);
    _ = it.label();
    const old = legacy.Item{ .cost = 2 };
    _ = old.describe();
}

test "a cart adds up" {
    var c = cart.Cart.init();
    c.add(Item.new(1));
    try std.testing.expect(c.total() == 1);
}
