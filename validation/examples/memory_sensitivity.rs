//! Diagnostic: per benchmark, the measured memory and core sensitivity of the time (scaling factor
//! at 810/975 and at 3505/595, vs the default clocks) beside the static features that should
//! predict it. Shows where the static picture and the measurements part ways (docs/validation.md).
//! `cargo run --release -p kerncast-validation --example memory_sensitivity`

use kerncast_validation::data::{default_root, DEFAULT_GPU};
use kerncast_validation::features::Features;
use kerncast_validation::isa::Class;
use kerncast_validation::Dataset;
fn main() {
    let ws = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let ds = Dataset::load(&default_root(&ws).expect("data set"), DEFAULT_GPU).expect("loads");
    let g = &ds.grid;
    let i810 = g
        .iter()
        .position(|c| c.mem_mhz == 810 && c.core_mhz == 975)
        .expect("grid point 810/975");
    let ilo = g
        .iter()
        .position(|c| c.mem_mhz == 3505 && c.core_mhz == 595)
        .expect("grid point 3505/595");
    println!(
        "{:<28} {:>5} {:>5} {:>5} | {:>6} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6} {:>5} {:>7}",
        "name",
        "memS",
        "corS",
        "pw810",
        "gacc/k",
        "B/cost",
        "ld%",
        "st%",
        "sh%",
        "sp%",
        "int%",
        "krn",
        "inst"
    );
    for (tag, set) in [("M", &ds.micro), ("R", &ds.real)] {
        for b in set.iter() {
            let y = ds.scaling(b);
            let f = Features::of(b, &ds.issue_costs);
            println!("{tag} {:<26} {:>5.2} {:>5.2} {:>5.2} | {:>6.0} {:>6.3} {:>6.3} {:>6.3} {:>6.3} {:>6.3} {:>6.3} {:>5} {:>7}",
                b.name, y[i810][0], y[ilo][0], y[i810][1], f.global_accesses / f.kernels, f.bytes_per_cost(),
                f.mix(Class::GlobalLd), f.mix(Class::GlobalSt), f.mix(Class::Shared), f.mix(Class::Sp), f.mix(Class::Int), f.kernels, f.instructions);
        }
    }
}
