fn main() {
    let n: Result<i32, _> = "12a".parse::<i32>();
    println!("{}", n.unwrap());
}
