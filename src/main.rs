fn main() {
    println!("labs: under construction");
}
