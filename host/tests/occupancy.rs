//! Launches sized by the CUDA occupancy API: its answers depend on the kernel's registers and
//! shared memory, which the caller knows (it compiled the kernel) and gives as an
//! [`OccupancyOracle`]; without one, what the API writes is an assumption named after the
//! variable it writes, which a value can be given for.

use kerncast_host::{read, OccupancyOracle, Options, Program, Scalar, Toolchain};
use std::sync::Arc;

const PROGRAM: &str = r#"__global__ void scale(float *x, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= s;
}
__global__ void persist(const float *x, float *y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    y[i] = 2.0f * x[i];
}
int main() {
  const int n = 1 << 22;
  float *x, *y;
  int minGridSize, blockSize;
  cudaOccupancyMaxPotentialBlockSize(&minGridSize, &blockSize, scale, 0, 0);
  scale<<<(n + blockSize - 1) / blockSize, blockSize>>>(x, 2.0f, n);
  int perSM = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSM, persist, 256, 0);
  persist<<<24 * perSM, 256>>>(x, y, n);
}
"#;

/// Answers as a device with 2048 threads per SM would give for a kernel of few registers;
/// it records the kernels it was asked about.
#[derive(Debug, Default)]
struct Fixed {
    asked: std::sync::Mutex<Vec<String>>,
}

impl OccupancyOracle for Fixed {
    fn active_blocks_per_sm(
        &self,
        kernel: &str,
        threads: u64,
        _shared: u64,
    ) -> Result<u64, String> {
        self.asked.lock().unwrap().push(kernel.to_string());
        Ok(2048 / threads)
    }
    fn max_potential_block_size(
        &self,
        kernel: &str,
        _shared: u64,
        _limit: u64,
    ) -> Result<(u64, u64), String> {
        self.asked.lock().unwrap().push(kernel.to_string());
        Ok((48, 1024))
    }
}

fn read_with(params: &[(&str, f64)], oracle: Option<Arc<Fixed>>) -> kerncast_host::HostReading {
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("kerncast-occupancy-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("occ.cu");
    std::fs::write(&file, PROGRAM).unwrap();
    let tools = Toolchain::discover();
    let program = Program::from_files(&[file], &[], &tools);
    let opts = Options {
        params: params.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
        toolchain: tools,
        occupancy: oracle.map(|o| o as Arc<dyn OccupancyOracle>),
        ..Options::default()
    };
    let r = read(&program, &opts).unwrap();
    assert!(
        r.diagnostics.is_empty(),
        "{:?} {:?}",
        r.diagnostics,
        r.launches
    );
    std::fs::remove_dir_all(&dir).unwrap();
    r
}

fn dims(r: &kerncast_host::HostReading, name: &str) -> (Scalar, Scalar) {
    let l = r.launches.iter().find(|l| l.name == name).unwrap();
    (l.grid[0].clone(), l.block[0].clone())
}

#[test]
fn the_occupancy_api_answers_for_the_kernel_it_is_asked_about() {
    let oracle = Arc::new(Fixed::default());
    let r = read_with(&[], Some(oracle.clone()));
    assert_eq!(dims(&r, "scale"), (Scalar::Int(4096), Scalar::Int(1024)));
    assert_eq!(dims(&r, "persist"), (Scalar::Int(192), Scalar::Int(256)));
    let asked = oracle.asked.lock().unwrap().clone();
    assert_eq!(asked.len(), 2, "{asked:?}");
    assert!(
        asked[0].contains("scale") && asked[1].contains("persist"),
        "{asked:?}"
    );
}

#[test]
fn without_answers_the_sizes_are_named_assumptions_a_value_can_be_given_for() {
    let r = read_with(&[], None);
    let (grid, block) = dims(&r, "scale");
    assert_eq!(block.unknown_name(), Some("blockSize"), "{block:?}");
    assert!(grid.unknown_reason().is_some());
    assert!(
        r.assumptions["blockSize"].contains("cudaOccupancyMaxPotentialBlockSize"),
        "{:?}",
        r.assumptions
    );
    let (grid, _) = dims(&r, "persist");
    assert_eq!(grid.unknown_name(), Some("perSM"), "{grid:?}");
    let r = read_with(&[("blockSize", 512.0), ("perSM", 4.0)], None);
    assert_eq!(dims(&r, "scale"), (Scalar::Int(8192), Scalar::Int(512)));
    assert_eq!(dims(&r, "persist"), (Scalar::Int(96), Scalar::Int(256)));
}
