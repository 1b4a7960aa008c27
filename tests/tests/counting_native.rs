//! The native counter (`poly::native`, summation without isl for the shapes GPU domains mostly
//! have) against isl's counter: every domain of every corpus kernel that the native counter
//! answers is also counted by isl, and the two counts compared at 64 parameter points
//! (`domain_count::check_native_counts` panics on the first difference, naming the domain).

use kerncast_passes::count::{analyze_kernel_with, Options};

#[test]
fn native_counts_equal_isl_counts_over_the_corpus() {
    let _ = kerncast_passes::domain_count::check_native_counts(true);
    let kernels = kerncast_tests::corpus_kernels();
    assert!(kernels.len() >= 100, "corpus has {} kernels", kernels.len());
    let mut analysed = 0;
    for k in &kernels {
        let opts = Options {
            block: Some(k.block),
            ..Default::default()
        };
        if analyze_kernel_with(&k.module, &k.kernel, &opts).is_ok() {
            analysed += 1;
        }
    }
    let compared = kerncast_passes::domain_count::check_native_counts(false);
    eprintln!(
        "{analysed} of {} corpus kernels counted; {compared} native counts equal isl's",
        kernels.len()
    );
    assert!(
        analysed * 10 >= kernels.len() * 9,
        "only {analysed} kernels analysed"
    );
    assert!(compared >= 100, "only {compared} native counts compared");
}
