// counting builds and drops many small polynomials; mimalloc makes that about a third faster
// than the system allocator (measured on the corpus with `cargo bench --bench count_corpus`)
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> miette::Result<()> {
    kerncast_cli::main()
}
