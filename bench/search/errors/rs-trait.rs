fn show<T: std::fmt::Display>(t: T) { println!("{}", t); }
struct P;
fn main() { show(P); }
