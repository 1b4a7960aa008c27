//! The host side would launch kernels/scale.cu; here it only says where the build's kerncast
//! report is.
fn main() {
    println!("kerncast report: {}", env!("KERNCAST_REPORT"));
}
