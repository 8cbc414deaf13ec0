const std = @import("std");

pub fn log(msg: []const u8) void {
    std.log.info("{s}", .{msg});
}

fn round(x: u32) u32 {
    return x;
}

pub fn twice(x: u32) u32 {
    return round(x) * 2;
}
