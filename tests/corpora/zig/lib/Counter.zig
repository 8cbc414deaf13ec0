//! A file that is a struct: its fields at the top, its functions its
//! methods, and the name it gives itself written last.
value: u32 = 0,
step: u32 = 1,

pub fn bump(self: *Counter) void {
    self.value += self.step;
    self.check();
}

fn check(self: *Counter) void {
    if (self.value > 1000) Counter.reset(self);
}

pub fn reset(self: *Counter) void {
    self.value = 0;
}

/// A struct inside the file-struct: @This() in its methods is Gauge.
pub const Gauge = struct {
    level: u32 = 0,

    fn full(self: *@This()) bool {
        return self.level > 9;
    }

    pub fn fill(self: *@This()) void {
        if (!self.full()) self.level += 1;
    }
};

fn isFull(g: anytype) bool {
    return g.full();
}

pub fn topUp(g: anytype) void {
    while (!isFull(g)) g.fill();
}

const Counter = @This();
