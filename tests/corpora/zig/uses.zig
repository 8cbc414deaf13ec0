//! Reaching the library through its namespace file.
const lib = @import("lib/root.zig");
const Counter = lib.Counter;
const twice = lib.util.twice;
const util = lib.util;
const Stack = lib.Stack;

pub fn count(c: *Counter) void {
    c.bump();
    c.reset();
}

pub fn stacks() void {
    var s = Stack(u8).init();
    s.push(1);
    var t = lib.stack.IntStack().init();
    t.push(2);
    var b = lib.stack.Buffer(true).init(4);
    _ = b;
}

pub fn numbers() u32 {
    util.log("n");
    _ = lib.util.twice(3);
    return twice(2);
}

pub fn notPassedOn() u32 {
    return lib.hidden.formatPrice(1);
}

pub fn look(g: *const lib.Counter.Gauge) void {
    g.fill();
}
