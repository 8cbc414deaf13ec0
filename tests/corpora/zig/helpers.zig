pub fn formatPrice(cents: u32) u32 {
    return cents / 100;
}
