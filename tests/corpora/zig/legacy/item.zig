pub const Item = struct {
    cost: u32,

    pub fn label(self: Item) []const u8 {
        _ = self;
        return "old";
    }

    pub fn describe(self: Item) u32 {
        return self.cost;
    }
};
