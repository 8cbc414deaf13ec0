fn main() {
    let n: i32 = "5";
    println!("{}", n);
}
