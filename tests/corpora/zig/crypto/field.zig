//! A field element type named Fe, like the one crypto/curve.zig makes.
pub const Fe = struct {
    limbs: [5]u64,

    pub fn mul(a: Fe, b: Fe) Fe {
        return a.add(b);
    }

    pub fn add(a: Fe, b: Fe) Fe {
        _ = b;
        return a;
    }
};
