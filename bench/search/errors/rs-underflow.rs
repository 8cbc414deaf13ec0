fn main() {
    let have: usize = std::env::args().count() - 1;
    let left = have - 1;
    println!("{}", left);
}
