//! The library's namespace: it passes its files on by name.
pub const Counter = @import("Counter.zig");
pub const stack = @import("Stack.zig");
pub const util = @import("../shop/util.zig");
pub const Stack = stack.Stack;
const hidden = @import("../helpers.zig");
