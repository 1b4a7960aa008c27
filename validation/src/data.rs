//! Loader for the gpuPTXModel data sets (Guerreiro et al., 2019), one GPU at a time: per-benchmark
//! measurements at every (memory, core) clock pair from the aggregated CSVs, the per-kernel
//! instruction sequences (coded and readable), the per-kernel opcode occurrences, and the GPU's
//! `gpu_info` (default clocks, clock levels, idle power). The released repository's layout is
//! `datasets/<gpu>/{micro,real}benchmarks` and `gpu_info/<gpu>`; its `gpu_info` describes four GPUs
//! (`gtxtitanx`, `titanxp`, `titanv`, `teslat4`) and only the GTX Titan X measurements are public,
//! so nothing here assumes that GPU's grid. Everything is checked on the way in (the clock grid
//! most benchmarks share, coded and readable sequences of equal length and agreeing opcodes) and
//! anything unusual, such as a benchmark off that grid, is counted in [`LoadStats`].

use crate::error::{io, Error, Result};
use crate::features::IssueCosts;
use crate::isa::{Inst, OPCODES};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A (memory, core) clock pair in MHz.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Clock {
    pub mem_mhz: u32,
    pub core_mhz: u32,
}

/// One measurement row: time (s), average power (W), energy (J).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Measurement {
    pub time_s: f64,
    pub power_w: f64,
    pub energy_j: f64,
}

/// The instructions of one kernel (`outputSequence_kernel_depend_<index>.csv`).
#[derive(Debug, Clone)]
pub struct Kernel {
    pub index: usize,
    pub insts: Vec<Inst>,
}

#[derive(Debug, Clone)]
pub struct Benchmark {
    pub name: String,
    /// One per grid point, in the order of [`Dataset::grid`].
    pub meas: Vec<Measurement>,
    /// Kernels in numeric file order.
    pub kernels: Vec<Kernel>,
    /// Kernel name -> occurrences of each of the 101 opcodes (`outputOccurrences_per_kernel.csv`).
    pub occurrences: BTreeMap<String, Vec<u64>>,
}

impl Benchmark {
    /// All instructions of all kernels, in kernel order.
    pub fn all_insts(&self) -> impl Iterator<Item = &Inst> {
        self.kernels.iter().flat_map(|k| k.insts.iter())
    }

    /// The kernel the released gpuPTXModel code trains on: the last file in lexicographic order
    /// (its loader resets the sequence for every file, notes/seed-003 §3.2). `None` only for a
    /// benchmark built without kernels: the loader refuses a folder that has none.
    pub fn faithful_kernel(&self) -> Option<&Kernel> {
        self.kernels
            .iter()
            .max_by(|a, b| a.index.to_string().cmp(&b.index.to_string()))
    }
}

/// Things the loader met and did not silently drop.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LoadStats {
    pub benchmarks: usize,
    pub kernels: usize,
    pub instructions: usize,
    /// Readable opcode (text before the first '.') differing from the coded opcode.
    pub readable_mismatches: usize,
    /// Benchmark directories present but without measurements (not used).
    pub unmeasured_dirs: Vec<String>,
    /// Names measured twice in one aggregated CSV: the later block replaces the earlier one, as a
    /// name-keyed reader (the released Python code) does; `stencil2d` is repeated in the
    /// released real-benchmark CSV.
    pub duplicate_names: Vec<String>,
    /// Benchmarks not measured at exactly the grid most benchmarks share (not used), with how
    /// many pairs they have: every model predicts and every error is taken over one grid.
    pub off_grid: Vec<String>,
}

/// The GPU whose measurements the released data set holds, and the one `cargo xtask validate`
/// loads when no `--gpu` is given and several are present.
pub const DEFAULT_GPU: &str = "gtxtitanx";

#[derive(Debug, Clone)]
pub struct Dataset {
    pub root: PathBuf,
    /// The data set's GPU name (`gtxtitanx`): the folder under `datasets/` and `gpu_info/`.
    pub gpu: String,
    pub grid: Vec<Clock>,
    /// Index of the default clocks (the last line of the `clks_*` files): the reference point.
    pub reference: usize,
    /// Index of the highest clocks (F_max).
    pub fmax: usize,
    /// Idle power per grid point (W), from `idle_pows_<gpu>.txt` (see [`idle_by_clock`]).
    pub idle_power_w: Vec<f64>,
    /// Issue costs of the instruction classes on this GPU: the CC 5.2 table until the caller sets
    /// the device profile's (`profile::Physics::issue_costs`).
    pub issue_costs: IssueCosts,
    pub micro: Vec<Benchmark>,
    pub real: Vec<Benchmark>,
    pub stats: LoadStats,
}

/// Where the data set lives: `$KERNCAST_GPUPTXMODEL_DATA`, else `<workspace>/../shared/data/gpuptxmodel`.
pub fn default_root(workspace: &Path) -> Result<PathBuf> {
    let p = match std::env::var_os("KERNCAST_GPUPTXMODEL_DATA") {
        Some(v) => PathBuf::from(v),
        None => workspace.join("../shared/data/gpuptxmodel"),
    };
    if p.join("datasets").is_dir() {
        Ok(p)
    } else {
        Err(Error::DataMissing(p))
    }
}

/// The GPUs with measurements under `<root>/datasets`, sorted.
pub fn gpus(root: &Path) -> Result<Vec<String>> {
    let dir = root.join("datasets");
    let mut out = Vec::new();
    for e in std::fs::read_dir(&dir).map_err(io(&dir))? {
        let e = e.map_err(io(&dir))?;
        if e.path().is_dir() {
            out.push(e.file_name().to_string_lossy().into_owned());
        }
    }
    out.sort();
    Ok(out)
}

/// The GPU to validate on: the one asked for, else [`DEFAULT_GPU`] when present, else the only
/// one there is. Several without a choice, or an unknown name, is an error listing what exists.
pub fn pick_gpu(root: &Path, asked: Option<&str>) -> Result<String> {
    let have = gpus(root)?;
    let listed = || {
        if have.is_empty() {
            "none".to_string()
        } else {
            have.join(", ")
        }
    };
    match asked {
        Some(g) if have.iter().any(|h| h == g) => Ok(g.to_string()),
        Some(g) => Err(Error::Inconsistent(format!(
            "no measurements for GPU `{g}` under {} (found: {})",
            root.join("datasets").display(),
            listed()
        ))),
        None if have.iter().any(|h| h == DEFAULT_GPU) => Ok(DEFAULT_GPU.to_string()),
        None if have.len() == 1 => Ok(have[0].clone()),
        None => Err(Error::Inconsistent(format!(
            "{} holds {} GPUs, choose one with --gpu (found: {})",
            root.join("datasets").display(),
            have.len(),
            listed()
        ))),
    }
}

fn read(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).map_err(io(path))
}

fn parse_err(path: &Path, line: usize, msg: impl Into<String>) -> Error {
    Error::Parse {
        path: path.to_path_buf(),
        line,
        msg: msg.into(),
    }
}

/// One benchmark's block of an aggregated CSV: its name and its rows.
pub type Block = (String, Vec<(Clock, Measurement)>);

/// Parses an aggregated CSV: a name line, then `mem,core,time,power,energy` rows.
pub fn parse_aggregated(path: &Path, text: &str) -> Result<Vec<Block>> {
    let mut out: Vec<Block> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        if !line.contains(',') {
            out.push((line.to_string(), Vec::new()));
            continue;
        }
        let f: Vec<&str> = line.split(',').collect();
        if f.len() != 5 {
            return Err(parse_err(
                path,
                i + 1,
                format!("expected 5 fields, got {}", f.len()),
            ));
        }
        let num = |s: &str| -> Result<f64> {
            s.trim()
                .parse::<f64>()
                .map_err(|e| parse_err(path, i + 1, format!("{s:?}: {e}")))
        };
        let clock = Clock {
            mem_mhz: num(f[0])? as u32,
            core_mhz: num(f[1])? as u32,
        };
        let m = Measurement {
            time_s: num(f[2])?,
            power_w: num(f[3])?,
            energy_j: num(f[4])?,
        };
        match out.last_mut() {
            Some((_, rows)) => rows.push((clock, m)),
            None => return Err(parse_err(path, i + 1, "measurement row before any name")),
        }
    }
    Ok(out)
}

fn read_numbers(path: &Path) -> Result<Vec<f64>> {
    read(path)?
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            l.trim()
                .parse::<f64>()
                .map_err(|e| parse_err(path, i + 1, e.to_string()))
        })
        .collect()
}

fn load_kernels(dir: &Path, stats: &mut LoadStats) -> Result<Vec<Kernel>> {
    let mut idx = Vec::new();
    for e in std::fs::read_dir(dir).map_err(io(dir))? {
        let name = e
            .map_err(io(dir))?
            .file_name()
            .to_string_lossy()
            .into_owned();
        if let Some(n) = name
            .strip_prefix("outputSequence_kernel_depend_")
            .and_then(|s| s.strip_suffix(".csv"))
        {
            let n: usize = n
                .parse()
                .map_err(|_| parse_err(&dir.join(&name), 0, "kernel index is not a number"))?;
            idx.push(n);
        }
    }
    idx.sort_unstable();
    if idx.is_empty() {
        return Err(parse_err(dir, 0, "no outputSequence_kernel_depend_*.csv"));
    }
    let mut kernels = Vec::new();
    for n in idx {
        let path = dir.join(format!("outputSequence_kernel_depend_{n}.csv"));
        let mut insts = Vec::new();
        for (i, l) in read(&path)?.lines().enumerate() {
            let l = l.trim();
            if l.is_empty() {
                continue;
            }
            insts.push(
                Inst::decode(l).ok_or_else(|| {
                    parse_err(&path, i + 1, format!("bad instruction code {l:?}"))
                })?,
            );
        }
        let rpath = dir.join(format!("outputSequenceReadable_kernel_{n}.csv"));
        if rpath.exists() {
            let readable: Vec<String> = read(&rpath)?
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .map(String::from)
                .collect();
            if readable.len() != insts.len() {
                return Err(parse_err(
                    &rpath,
                    readable.len(),
                    format!("{} readable lines vs {} coded", readable.len(), insts.len()),
                ));
            }
            for (r, c) in readable.iter().zip(&insts) {
                let base = r.split('.').next().unwrap_or("");
                if base != c.opcode_name() {
                    stats.readable_mismatches += 1;
                }
            }
        }
        kernels.push(Kernel { index: n, insts });
    }
    Ok(kernels)
}

fn load_occurrences(dir: &Path) -> Result<BTreeMap<String, Vec<u64>>> {
    let path = dir.join("outputOccurrences_per_kernel.csv");
    let mut out = BTreeMap::new();
    if !path.exists() {
        return Ok(out);
    }
    for (i, l) in read(&path)?.lines().enumerate() {
        let f: Vec<&str> = l.trim().split(',').collect();
        if f.len() < 2 {
            continue;
        }
        if f.len() != OPCODES.len() + 1 {
            return Err(parse_err(
                &path,
                i + 1,
                format!("{} fields, expected 102", f.len()),
            ));
        }
        let counts = f[1..]
            .iter()
            .map(|s| {
                s.parse::<u64>()
                    .map_err(|e| parse_err(&path, i + 1, e.to_string()))
            })
            .collect::<Result<Vec<_>>>()?;
        out.insert(f[0].to_string(), counts);
    }
    Ok(out)
}

/// A benchmark as read, with the clock pair of each measurement (ascending).
type Measured = (Benchmark, Vec<Clock>);

fn load_suite(dir: &Path, gpu: &str, stats: &mut LoadStats) -> Result<Vec<Measured>> {
    let csv = dir.join(format!("aggregated_dataset_{gpu}.csv"));
    let blocks = parse_aggregated(&csv, &read(&csv)?)?;
    let mut out: Vec<Measured> = Vec::new();
    for (name, mut rows) in blocks {
        rows.sort_by_key(|r| r.0);
        let clocks: Vec<Clock> = rows.iter().map(|r| r.0).collect();
        if let Some(w) = clocks.windows(2).find(|w| w[0] == w[1]) {
            return Err(Error::Inconsistent(format!(
                "{}: benchmark {name} is measured twice at {}/{}",
                csv.display(),
                w[0].mem_mhz,
                w[0].core_mhz
            )));
        }
        let bdir = dir.join(&name);
        let kernels = load_kernels(&bdir, stats)?;
        let occurrences = load_occurrences(&bdir)?;
        let b = Benchmark {
            name,
            meas: rows.into_iter().map(|r| r.1).collect(),
            kernels,
            occurrences,
        };
        match out.iter().position(|o| o.0.name == b.name) {
            Some(i) => {
                stats.duplicate_names.push(b.name.clone());
                out[i] = (b, clocks);
            }
            None => out.push((b, clocks)),
        }
    }
    for e in std::fs::read_dir(dir).map_err(io(dir))? {
        let e = e.map_err(io(dir))?;
        let n = e.file_name().to_string_lossy().into_owned();
        if e.path().is_dir() && !out.iter().any(|b| b.0.name == n) {
            stats.unmeasured_dirs.push(n);
        }
    }
    stats.unmeasured_dirs.sort();
    Ok(out)
}

/// The clock pairs most benchmarks are measured at (the first such list on a tie).
fn common_grid<'a>(all: impl Iterator<Item = &'a Measured>) -> Vec<Clock> {
    let mut counts: Vec<(&Vec<Clock>, usize)> = Vec::new();
    for (_, clocks) in all {
        match counts.iter_mut().find(|c| c.0 == clocks) {
            Some(c) => c.1 += 1,
            None => counts.push((clocks, 1)),
        }
    }
    let most = counts.iter().map(|c| c.1).max().unwrap_or(0);
    counts
        .into_iter()
        .find(|c| c.1 == most)
        .map(|c| c.0.clone())
        .unwrap_or_default()
}

/// The benchmarks on `grid`; the others are named in `off_grid` with how many pairs they have.
fn on_grid(all: Vec<Measured>, grid: &[Clock], off_grid: &mut Vec<String>) -> Vec<Benchmark> {
    let mut out = Vec::new();
    for (b, clocks) in all {
        if clocks == grid {
            out.push(b);
        } else {
            let shared = clocks.iter().filter(|c| grid.contains(c)).count();
            off_grid.push(format!(
                "{} ({} pairs, {} of the grid's {})",
                b.name,
                clocks.len(),
                shared,
                grid.len()
            ));
        }
    }
    out
}

/// The clock levels and idle powers of `gpu_info/<gpu>`, keyed by clock.
///
/// `clks_mem_<gpu>.txt` and `clks_core_<gpu>_<mem>.txt` list the allowed levels, one per line, and
/// repeat the default as their last line. `idle_pows_<gpu>.txt` has one power per level pair, with
/// no clocks beside them: its lines pair with the pairs in ascending memory then core order. That
/// is the row order of the released aggregated CSVs, and the only order in which the released
/// powers rise with both clocks, on every GPU of `gpu_info` (the device profiles in `devices/`
/// record the same pairing). Returns the default pair and the (clock, idle W) table.
pub fn idle_by_clock(info: &Path, gpu: &str) -> Result<(Clock, Vec<(Clock, f64)>)> {
    let mem_path = info.join(format!("clks_mem_{gpu}.txt"));
    let (def_mem, mems) = levels_and_default(&mem_path)?;
    let mut pairs = Vec::new();
    let mut def_core = None;
    for &m in &mems {
        let core_path = info.join(format!("clks_core_{gpu}_{m}.txt"));
        let (d, cores) = levels_and_default(&core_path)?;
        if m == def_mem {
            def_core = Some(d);
        }
        pairs.extend(cores.into_iter().map(|c| Clock {
            mem_mhz: m,
            core_mhz: c,
        }));
    }
    let def_core = def_core.ok_or_else(|| {
        parse_err(
            &mem_path,
            0,
            format!("the default memory clock {def_mem} is not among the listed levels"),
        )
    })?;
    pairs.sort();
    pairs.dedup();
    let idle_path = info.join(format!("idle_pows_{gpu}.txt"));
    let idle = read_numbers(&idle_path)?;
    if idle.len() != pairs.len() {
        return Err(parse_err(
            &idle_path,
            idle.len(),
            format!(
                "{} idle powers for {} clock pairs in clks_* (one per pair expected)",
                idle.len(),
                pairs.len()
            ),
        ));
    }
    let default = Clock {
        mem_mhz: def_mem,
        core_mhz: def_core,
    };
    Ok((default, pairs.into_iter().zip(idle).collect()))
}

/// A `clks_*` file: its levels (every line but the last) and its default (the last line).
fn levels_and_default(path: &Path) -> Result<(u32, Vec<u32>)> {
    let mut v: Vec<u32> = read_numbers(path)?
        .into_iter()
        .map(|x| x.round() as u32)
        .collect();
    let def = v
        .pop()
        .ok_or_else(|| parse_err(path, 0, "no clock levels"))?;
    if v.is_empty() {
        return Err(parse_err(path, 1, "only a default line, no levels"));
    }
    Ok((def, v))
}

impl Dataset {
    /// Loads `<root>/datasets/<gpu>/{micro,real}benchmarks` and `<root>/gpu_info/<gpu>`.
    pub fn load(root: &Path, gpu: &str) -> Result<Dataset> {
        let ds = root.join("datasets").join(gpu);
        if !ds.is_dir() {
            return Err(Error::DataMissing(ds));
        }
        let mut stats = LoadStats::default();
        let micro = load_suite(&ds.join("microbenchmarks"), gpu, &mut stats)?;
        let real = load_suite(&ds.join("realbenchmarks"), gpu, &mut stats)?;
        let grid = common_grid(micro.iter().chain(&real));
        let micro = on_grid(micro, &grid, &mut stats.off_grid);
        let real = on_grid(real, &grid, &mut stats.off_grid);
        stats.benchmarks = micro.len() + real.len();
        for b in micro.iter().chain(&real) {
            stats.kernels += b.kernels.len();
            stats.instructions += b.kernels.iter().map(|k| k.insts.len()).sum::<usize>();
        }
        let info = root.join("gpu_info").join(gpu);
        let (default, idle) = idle_by_clock(&info, gpu)?;
        let find = |c: Clock| grid.iter().position(|k| *k == c);
        let reference = find(default).ok_or_else(|| {
            Error::Inconsistent(format!(
                "{}: the default clocks {}/{} are not in the measured grid",
                info.display(),
                default.mem_mhz,
                default.core_mhz
            ))
        })?;
        let fmax = (0..grid.len())
            .max_by_key(|&i| (grid[i].mem_mhz, grid[i].core_mhz))
            .ok_or_else(|| Error::Inconsistent("empty grid".into()))?;
        let idle_power_w = grid
            .iter()
            .map(|c| {
                idle.iter()
                    .find(|(k, _)| k == c)
                    .map(|(_, w)| *w)
                    .ok_or_else(|| {
                        Error::Inconsistent(format!(
                            "{}: the measured clock pair {}/{} is not among the levels of clks_*",
                            info.display(),
                            c.mem_mhz,
                            c.core_mhz
                        ))
                    })
            })
            .collect::<Result<Vec<f64>>>()?;
        Ok(Dataset {
            root: root.to_path_buf(),
            gpu: gpu.to_string(),
            grid,
            reference,
            fmax,
            idle_power_w,
            issue_costs: IssueCosts::cc52(),
            micro,
            real,
            stats,
        })
    }

    /// Scaling factors (time, power, energy) of a benchmark relative to the reference clocks.
    pub fn scaling(&self, b: &Benchmark) -> Vec<[f64; 3]> {
        let r = b.meas[self.reference];
        b.meas
            .iter()
            .map(|m| {
                [
                    m.time_s / r.time_s,
                    m.power_w / r.power_w,
                    m.energy_j / r.energy_j,
                ]
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aggregated_csv_parses_and_errors_name_the_line() {
        let p = Path::new("x.csv");
        let t = "a\n810,595,1.0,2.0,2.0\n3505,975,0.5,4.0,2.0\nb\n810,595,1,1,1\n";
        let r = parse_aggregated(p, t).unwrap();
        assert_eq!(r.len(), 2);
        assert_eq!(
            r[0].1[1].0,
            Clock {
                mem_mhz: 3505,
                core_mhz: 975
            }
        );
        assert_eq!(r[0].1[1].1.power_w, 4.0);
        let e = parse_aggregated(p, "a\n810,595,1.0\n")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("x.csv:2:"), "{e}");
        let e = parse_aggregated(p, "810,595,1,1,1\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("before any name"), "{e}");
    }
}
