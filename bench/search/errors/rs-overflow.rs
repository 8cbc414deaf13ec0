fn main() {
    let x: u8 = std::env::args().count() as u8 + 254;
    let y = x + 1;
    println!("{}", y);
}
