//! Host readings kept between runs (`kerncast::host_cache`): a stored reading is the reading
//! itself, it is taken again only while what it read is unchanged (an edited header is read
//! again), and a broken entry is read again and replaced, never trusted.

use kerncast::host_cache::{read_noting, Source};
use kerncast_host::{HostReading, OccupancyOracle, Options, Program, Scalar, Toolchain};
use std::path::{Path, PathBuf};
use std::sync::Arc;

const MAIN: &str = r#"#include "sizes.h"
__global__ void scale(float *x, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= s;
}
int main() {
  const int n = 1 << 20;
  float *x;
  cudaMalloc(&x, n * sizeof(float));
  for (int r = 0; r < 3; ++r) scale<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(x, 0.5f, n);
  cudaFree(x);
  return 0;
}
"#;

/// A scratch project: `main.cu` and the `sizes.h` it includes, with a block of `block`.
struct Project {
    dir: tempfile::TempDir,
    tools: Toolchain,
}

impl Project {
    fn new(main: &str, block: u32) -> Project {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("main.cu"), main).unwrap();
        let p = Project {
            dir,
            tools: Toolchain::discover(),
        };
        assert!(p.tools.cuda_path.is_some(), "run `cargo xtask bootstrap`");
        p.set_block(block);
        p
    }

    fn set_block(&self, block: u32) {
        std::fs::write(self.header(), format!("#define BLOCK {block}\n")).unwrap();
    }

    fn header(&self) -> PathBuf {
        self.dir.path().join("sizes.h")
    }

    fn cache(&self) -> PathBuf {
        self.dir.path().join("cache")
    }

    fn program(&self) -> Program {
        Program::from_files(
            &[self.dir.path().join("main.cu")],
            &["-std=c++17".to_string()],
            &self.tools,
        )
    }

    fn options(&self) -> Options {
        Options {
            toolchain: self.tools.clone(),
            prelude_cache: Some(self.cache().join("host-preludes")),
            ..Options::default()
        }
    }

    fn read(&self, opts: &Options) -> (HostReading, Source) {
        let (r, source) = read_noting(&self.program(), opts, &self.cache().join("host-readings"))
            .expect("the program reads");
        assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
        (r, source)
    }
}

/// Everything a reading holds but the files it read (a reading from the cache does not list
/// them again): `Debug` shows every field, those reports leave out among them.
fn whole(r: &HostReading) -> String {
    let mut r = r.clone();
    r.inputs = None;
    format!("{r:?}")
}

fn block_of(r: &HostReading) -> &Scalar {
    assert_eq!(r.launches.len(), 1, "{:?}", r.launches);
    &r.launches[0].block[0]
}

fn entries(dir: &Path) -> Vec<PathBuf> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .map(walkdir::DirEntry::into_path)
        .filter(|p| p.is_file())
        .collect()
}

#[test]
fn a_stored_reading_is_the_fresh_reading() {
    let p = Project::new(MAIN, 128);
    let opts = p.options();
    let fresh = kerncast_host::read(&p.program(), &opts).unwrap();
    let (first, source) = p.read(&opts);
    assert_eq!(source, Source::Read);
    let (stored, source) = p.read(&opts);
    assert_eq!(
        source,
        Source::Stored,
        "nothing changed: the stored reading"
    );
    assert_eq!(whole(&stored), whole(&fresh));
    assert_eq!(whole(&first), whole(&fresh));
    assert_eq!(stored.launches[0].count, 3);
    assert_eq!(block_of(&stored), &Scalar::Int(128));
    // another value for the reading is another key
    let mut other = p.options();
    other.params.insert("n".into(), 4096.0);
    assert_eq!(p.read(&other).1, Source::Read);
}

#[test]
fn an_edited_header_is_read_again() {
    let p = Project::new(MAIN, 128);
    let opts = p.options();
    assert_eq!(block_of(&p.read(&opts).0), &Scalar::Int(128));
    assert_eq!(p.read(&opts).1, Source::Stored);
    // the included header alone changes: the unit's own file, and so the key, are the same
    p.set_block(256);
    let (r, source) = p.read(&opts);
    assert_eq!(source, Source::Read, "the header changed");
    assert_eq!(block_of(&r), &Scalar::Int(256));
    let (r, source) = p.read(&opts);
    assert_eq!(source, Source::Stored);
    assert_eq!(block_of(&r), &Scalar::Int(256));
    // and back
    p.set_block(128);
    let (r, _) = p.read(&opts);
    assert_eq!(block_of(&r), &Scalar::Int(128));
}

#[test]
fn a_new_header_that_an_include_would_find_first_is_a_change() {
    // `sizes.h` in an include folder; a new one beside the unit is found first by `#include "…"`
    let p = Project::new(MAIN, 128);
    let inc = p.dir.path().join("inc");
    std::fs::create_dir_all(&inc).unwrap();
    std::fs::rename(p.header(), inc.join("sizes.h")).unwrap();
    let program = Program::from_files(
        &[p.dir.path().join("main.cu")],
        &[format!("-I{}", inc.display())],
        &p.tools,
    );
    let dir = p.cache().join("host-readings");
    let read = || read_noting(&program, &p.options(), &dir).unwrap();
    assert_eq!(block_of(&read().0), &Scalar::Int(128));
    assert_eq!(read().1, Source::Stored);
    p.set_block(64);
    let (r, source) = read();
    assert_eq!(source, Source::Read);
    assert_eq!(block_of(&r), &Scalar::Int(64));
}

#[test]
fn a_broken_entry_is_read_again_and_replaced() {
    let p = Project::new(MAIN, 128);
    let opts = p.options();
    let (fresh, _) = p.read(&opts);
    let stored = entries(&p.cache().join("host-readings"));
    assert_eq!(stored.len(), 1, "one entry: {stored:?}");
    let text = std::fs::read(&stored[0]).unwrap();
    for broken in [&text[..text.len() / 2], b"", b"{\"variants\": 3}"] {
        std::fs::write(&stored[0], broken).unwrap();
        let (r, source) = p.read(&opts);
        assert_eq!(source, Source::Read, "a broken entry is not taken");
        assert_eq!(whole(&r), whole(&fresh));
        let (r, source) = p.read(&opts);
        assert_eq!(source, Source::Stored, "and it was replaced");
        assert_eq!(whole(&r), whole(&fresh));
    }
}

const OCCUPANCY: &str = r#"__global__ void scale(float *x, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= s;
}
int main() {
  const int n = 1 << 22;
  float *x;
  int minGridSize, blockSize;
  cudaOccupancyMaxPotentialBlockSize(&minGridSize, &blockSize, scale, 0, 0);
  scale<<<(n + blockSize - 1) / blockSize, blockSize>>>(x, 2.0f, n);
}
"#;

/// Answers a block of as many threads as it holds.
#[derive(Debug)]
struct Block(u64);

impl OccupancyOracle for Block {
    fn active_blocks_per_sm(&self, _: &str, threads: u64, _: u64) -> Result<u64, String> {
        Ok(2048 / threads)
    }
    fn max_potential_block_size(&self, _: &str, _: u64, _: u64) -> Result<(u64, u64), String> {
        Ok((48, self.0))
    }
}

#[test]
fn a_reading_holds_only_for_the_same_occupancy_answers() {
    let p = Project::new(OCCUPANCY, 0);
    let with = |block: u64| Options {
        occupancy: Some(Arc::new(Block(block)) as Arc<dyn OccupancyOracle>),
        ..p.options()
    };
    let (r, source) = p.read(&with(1024));
    assert_eq!((block_of(&r), source), (&Scalar::Int(1024), Source::Read));
    let (r, source) = p.read(&with(256));
    assert_eq!((block_of(&r), source), (&Scalar::Int(256), Source::Read));
    // both kept: an analysis reads without the answers and with them, run after run
    let (r, source) = p.read(&with(1024));
    assert_eq!((block_of(&r), source), (&Scalar::Int(1024), Source::Stored));
    let (r, source) = p.read(&with(256));
    assert_eq!((block_of(&r), source), (&Scalar::Int(256), Source::Stored));
}
