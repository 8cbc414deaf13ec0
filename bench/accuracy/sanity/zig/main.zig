const std = @import("std");
const shop = @import("shop.zig");
const Till = @import("Till.zig");

fn double(x: u32) u32 {
    return x * 2;
}

inline fn triple(x: u32) u32 {
    return x * 3;
}

fn agree(c: *const shop.Cart, t: anytype) bool {
    return c.total() == t.total();
}

test "a cart and a till" {
    var cart = shop.Cart.init();
    cart.add(double(2));
    var f: *const fn (u32) u32 = &double;
    cart.add(f(1));
    cart.add(triple(1));
    var till = Till{};
    till.ring(cart.total());
    var q = shop.Queue(u8).make();
    q.put(3);
    try std.testing.expect(till.sum == 9);
    try std.testing.expect(agree(&cart, &till));
}
