// mimalloc instead of the system allocator: it backs its memory with transparent huge pages
// and reuses freed blocks per thread, where glibc returned and re-faulted them. Exploring
// leader n=8 with two threads takes 50 times fewer page faults and about 8 % less time
// (docs/performance.md, "Memory").
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    std::process::exit(labs::cli::main());
}
