//! Generic types: functions that return a struct.
const std = @import("std");

pub fn Stack(comptime T: type) type {
    return struct {
        const Self = @This();
        items: [16]T = undefined,
        len: usize = 0,

        pub fn init() Self {
            return .{};
        }

        pub fn push(self: *Self, x: T) void {
            self.grow();
            self.items[self.len] = x;
            self.len += 1;
        }

        fn grow(self: *Self) void {
            std.debug.assert(self.len < 16);
        }
    };
}

/// A stack of ints is a Stack(i32): it has Stack's functions.
pub fn IntStack() type {
    return Stack(i32);
}

/// One of two init functions, chosen by the compiler.
pub fn Buffer(comptime dynamic: bool) type {
    return struct {
        const Self = @This();
        len: usize,

        pub usingnamespace if (dynamic) struct {
            pub fn init(n: usize) Self {
                return .{ .len = n };
            }
        } else struct {
            pub fn init(n: usize) Self {
                return .{ .len = n * 2 };
            }
        };
    };
}

/// A struct whose fields are stacks: self.left.push() is Stack's, the
/// field's type being a name the struct binds to Stack(T).
pub fn Pair(comptime T: type) type {
    return struct {
        const Self = @This();
        const Inner = Stack(T);
        left: Inner = Inner.init(),
        right: *Inner,

        pub fn pushBoth(self: *Self, x: T) void {
            self.left.push(x);
            const r = self.right;
            r.push(x);
        }

        /// a struct of its own inside a method: its field is not Pair's
        pub fn pushLeft(self: *Self, x: T) void {
            const Local = struct { left: u8 };
            _ = Local;
            self.left.push(x);
        }
    };
}

// A test's locals are typed as a function's are; a name two tests bind
// to two types is known in neither after the second.
test "a stack in a test" {
    const util = @import("../shop/util.zig");
    var s = Stack(u8).init();
    s.push(1);
    _ = util.twice(2);
}

test "another test's s" {
    var s = IntStack().init();
    s.push(2);
}
