fn main() {
    let v: Vec<i32> = Vec::new();
    let first = v.first().copied();
    println!("{}", first.unwrap());
}
