fn main() {
    std::process::exit(labs::cli::main());
}
