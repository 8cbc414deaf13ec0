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

    /// a chain on what each call returns, and a variable assigned
    /// again: its type is still the one its declaration made
    pub fn cube(a: Fe) Fe {
        var t = a.mul(a);
        t = t.mul(a).add(a);
        return t.neg();
    }

    pub fn neg(a: Fe) Fe {
        return a;
    }
};
