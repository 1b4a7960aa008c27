//! A host reading as the cache keeps it: every field, so that a reading read back is the one
//! that was stored. `kerncast_host`'s own serialisation is for reports and drops what they do
//! not show (an unknown value's reason, the order of a launch's arguments), so it cannot be
//! read back. Each conversion takes its value apart field by field: a field added to the host
//! reading is a compile error here, never silently dropped from the cache.

use kerncast_host::drawn::Drawn;
use kerncast_host::{
    BufferData, CallSite, EmbeddedSource, HostReading, Launch, Scalar, SourceOrigin, Unreached,
};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

#[derive(Serialize, Deserialize)]
pub struct StoredReading {
    launches: Vec<StoredLaunch>,
    unreached: Vec<StoredUnreached>,
    assumptions: BTreeMap<String, String>,
    params_used: BTreeSet<String>,
    diagnostics: Vec<String>,
    notes: Vec<String>,
    #[serde(default)]
    missing_inputs: BTreeMap<String, String>,
    steps: u64,
    embedded: Vec<StoredEmbedded>,
    /// Absent from a reading stored before kerncast kept it: read back as not known.
    #[serde(default)]
    kernels_defined: Option<BTreeMap<std::path::PathBuf, BTreeSet<String>>>,
}

/// A number of a launch. A float is kept as its bits: JSON has no NaN or infinity.
#[derive(Serialize, Deserialize)]
enum StoredScalar {
    Int(i64),
    FloatBits(u64),
    Other(String),
    Unknown(String),
}

#[derive(Serialize, Deserialize)]
struct StoredLaunch {
    kernel: String,
    name: String,
    symbol: String,
    by_name: bool,
    grid: [StoredScalar; 3],
    block: [StoredScalar; 3],
    shared_bytes: StoredScalar,
    args: BTreeMap<String, StoredScalar>,
    arg_order: Vec<String>,
    fields: BTreeMap<String, StoredScalar>,
    field_offsets: BTreeMap<String, u64>,
    buffer_bytes: BTreeMap<String, StoredScalar>,
    /// What the host wrote into them: the bytes in hex, whether after a kernel ran, why
    /// some are zeros, and the elements described instead of the bytes.
    buffer_data: BTreeMap<String, (String, bool, Option<String>, Option<Drawn>)>,
    count: u64,
    count_note: Option<String>,
    file: String,
    line: u32,
    col: u32,
    api: String,
    conditions: Vec<String>,
    via: Vec<String>,
    calls: Vec<StoredCallSite>,
    order: Vec<usize>,
}

#[derive(Serialize, Deserialize)]
struct StoredCallSite {
    function: String,
    file: String,
    line: u32,
}

#[derive(Serialize, Deserialize)]
struct StoredUnreached {
    kernel: Option<String>,
    symbol: Option<String>,
    file: String,
    line: u32,
    api: String,
    function: String,
    reason: String,
}

#[derive(Serialize, Deserialize)]
struct StoredEmbedded {
    api: String,
    language: String,
    text: Option<String>,
    unknown: Option<String>,
    origin: StoredOrigin,
    kernels: Vec<String>,
    options: Vec<String>,
    name_expressions: Vec<String>,
    extern_c: bool,
    headers: Vec<(String, String)>,
    name: Option<String>,
    file: String,
    line: u32,
}

#[derive(Serialize, Deserialize)]
enum StoredOrigin {
    Literal { file: String, line: u32, col: u32 },
    File { path: String },
    Lines { file: String, lines: Vec<u32> },
    Computed,
}

impl StoredReading {
    /// The reading as stored. What it read (`inputs`) is kept apart, with the digests that
    /// say whether it still holds.
    pub fn of(r: &HostReading) -> StoredReading {
        let HostReading {
            launches,
            unreached,
            assumptions,
            params_used,
            diagnostics,
            notes,
            missing_inputs,
            steps,
            embedded,
            inputs: _,
            kernels_defined,
        } = r.clone();
        StoredReading {
            launches: launches.into_iter().map(StoredLaunch::of).collect(),
            unreached: unreached.into_iter().map(StoredUnreached::of).collect(),
            assumptions,
            params_used,
            diagnostics,
            notes,
            missing_inputs,
            steps,
            embedded: embedded.into_iter().map(StoredEmbedded::of).collect(),
            kernels_defined,
        }
    }

    /// The reading stored. `inputs` is left `None`: a reading from the cache is not stored again.
    pub fn reading(self) -> HostReading {
        let StoredReading {
            launches,
            unreached,
            assumptions,
            params_used,
            diagnostics,
            notes,
            missing_inputs,
            steps,
            embedded,
            kernels_defined,
        } = self;
        HostReading {
            launches: launches.into_iter().map(StoredLaunch::launch).collect(),
            unreached: unreached
                .into_iter()
                .map(StoredUnreached::unreached)
                .collect(),
            assumptions,
            params_used,
            diagnostics,
            notes,
            missing_inputs,
            steps,
            embedded: embedded.into_iter().map(StoredEmbedded::source).collect(),
            inputs: None,
            kernels_defined,
        }
    }
}

impl StoredScalar {
    fn of(s: Scalar) -> StoredScalar {
        match s {
            Scalar::Int(i) => StoredScalar::Int(i),
            Scalar::Float(f) => StoredScalar::FloatBits(f.to_bits()),
            Scalar::Other(o) => StoredScalar::Other(o),
            Scalar::Unknown(u) => StoredScalar::Unknown(u),
        }
    }

    fn scalar(self) -> Scalar {
        match self {
            StoredScalar::Int(i) => Scalar::Int(i),
            StoredScalar::FloatBits(b) => Scalar::Float(f64::from_bits(b)),
            StoredScalar::Other(o) => Scalar::Other(o),
            StoredScalar::Unknown(u) => Scalar::Unknown(u),
        }
    }
}

fn stored_map(m: BTreeMap<String, Scalar>) -> BTreeMap<String, StoredScalar> {
    m.into_iter()
        .map(|(k, v)| (k, StoredScalar::of(v)))
        .collect()
}

fn scalar_map(m: BTreeMap<String, StoredScalar>) -> BTreeMap<String, Scalar> {
    m.into_iter().map(|(k, v)| (k, v.scalar())).collect()
}

impl StoredLaunch {
    fn of(l: Launch) -> StoredLaunch {
        let Launch {
            kernel,
            name,
            symbol,
            by_name,
            grid,
            block,
            shared_bytes,
            args,
            arg_order,
            fields,
            field_offsets,
            buffer_bytes,
            buffer_data,
            count,
            count_note,
            file,
            line,
            col,
            api,
            conditions,
            via,
            calls,
            order,
        } = l;
        StoredLaunch {
            kernel,
            name,
            symbol,
            by_name,
            grid: grid.map(StoredScalar::of),
            block: block.map(StoredScalar::of),
            shared_bytes: StoredScalar::of(shared_bytes),
            args: stored_map(args),
            arg_order,
            fields: stored_map(fields),
            field_offsets,
            buffer_bytes: stored_map(buffer_bytes),
            buffer_data: buffer_data
                .into_iter()
                .map(|(k, d)| {
                    let hex = crate::buffers::hex_spec(&d.bytes);
                    (k, (hex, d.after_a_kernel, d.zeros_for, d.drawn))
                })
                .collect(),
            count,
            count_note,
            file,
            line,
            col,
            api,
            conditions,
            via,
            calls: calls
                .into_iter()
                .map(|c| {
                    let CallSite {
                        function,
                        file,
                        line,
                    } = c;
                    StoredCallSite {
                        function,
                        file,
                        line,
                    }
                })
                .collect(),
            order,
        }
    }

    fn launch(self) -> Launch {
        let StoredLaunch {
            kernel,
            name,
            symbol,
            by_name,
            grid,
            block,
            shared_bytes,
            args,
            arg_order,
            fields,
            field_offsets,
            buffer_bytes,
            buffer_data,
            count,
            count_note,
            file,
            line,
            col,
            api,
            conditions,
            via,
            calls,
            order,
        } = self;
        Launch {
            kernel,
            name,
            symbol,
            by_name,
            grid: grid.map(StoredScalar::scalar),
            block: block.map(StoredScalar::scalar),
            shared_bytes: shared_bytes.scalar(),
            args: scalar_map(args),
            arg_order,
            fields: scalar_map(fields),
            field_offsets,
            buffer_bytes: scalar_map(buffer_bytes),
            buffer_data: buffer_data
                .into_iter()
                .filter_map(|(k, (hex, after_a_kernel, zeros_for, drawn))| {
                    let bytes = crate::buffers::generate(&hex, &BTreeMap::new(), 0).ok()?;
                    Some((
                        k,
                        BufferData {
                            bytes,
                            drawn,
                            after_a_kernel,
                            zeros_for,
                        },
                    ))
                })
                .collect(),
            count,
            count_note,
            file,
            line,
            col,
            api,
            conditions,
            via,
            calls: calls
                .into_iter()
                .map(|c| CallSite {
                    function: c.function,
                    file: c.file,
                    line: c.line,
                })
                .collect(),
            order,
        }
    }
}

impl StoredUnreached {
    fn of(u: Unreached) -> StoredUnreached {
        let Unreached {
            kernel,
            symbol,
            file,
            line,
            api,
            function,
            reason,
        } = u;
        StoredUnreached {
            kernel,
            symbol,
            file,
            line,
            api,
            function,
            reason,
        }
    }

    fn unreached(self) -> Unreached {
        let StoredUnreached {
            kernel,
            symbol,
            file,
            line,
            api,
            function,
            reason,
        } = self;
        Unreached {
            kernel,
            symbol,
            file,
            line,
            api,
            function,
            reason,
        }
    }
}

impl StoredEmbedded {
    fn of(e: EmbeddedSource) -> StoredEmbedded {
        let EmbeddedSource {
            api,
            language,
            text,
            unknown,
            origin,
            kernels,
            options,
            name_expressions,
            extern_c,
            headers,
            name,
            file,
            line,
        } = e;
        StoredEmbedded {
            api,
            language,
            text,
            unknown,
            origin: match origin {
                SourceOrigin::Literal { file, line, col } => {
                    StoredOrigin::Literal { file, line, col }
                }
                SourceOrigin::File { path } => StoredOrigin::File { path },
                SourceOrigin::Lines { file, lines } => StoredOrigin::Lines { file, lines },
                SourceOrigin::Computed => StoredOrigin::Computed,
            },
            kernels,
            options,
            name_expressions,
            extern_c,
            headers,
            name,
            file,
            line,
        }
    }

    fn source(self) -> EmbeddedSource {
        let StoredEmbedded {
            api,
            language,
            text,
            unknown,
            origin,
            kernels,
            options,
            name_expressions,
            extern_c,
            headers,
            name,
            file,
            line,
        } = self;
        EmbeddedSource {
            api,
            language,
            text,
            unknown,
            origin: match origin {
                StoredOrigin::Literal { file, line, col } => {
                    SourceOrigin::Literal { file, line, col }
                }
                StoredOrigin::File { path } => SourceOrigin::File { path },
                StoredOrigin::Lines { file, lines } => SourceOrigin::Lines { file, lines },
                StoredOrigin::Computed => SourceOrigin::Computed,
            },
            kernels,
            options,
            name_expressions,
            extern_c,
            headers,
            name,
            file,
            line,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn launch() -> Launch {
        Launch {
            kernel: "scale(float*, int)".into(),
            name: "scale".into(),
            symbol: "_Z5scalePfi".into(),
            by_name: false,
            grid: [Scalar::Int(4096), Scalar::Int(1), Scalar::Int(1)],
            block: [
                Scalar::Unknown("`bs`: read from a file".into()),
                Scalar::Int(1),
                Scalar::Int(1),
            ],
            shared_bytes: Scalar::Int(0),
            args: [
                ("x".to_string(), Scalar::Other("a device buffer".into())),
                ("a".to_string(), Scalar::Float(f64::NAN)),
                ("b".to_string(), Scalar::Float(0.1)),
            ]
            .into_iter()
            .collect(),
            arg_order: vec!["x".into(), "b".into(), "a".into()],
            fields: [("p.n".to_string(), Scalar::Float(f64::INFINITY))]
                .into_iter()
                .collect(),
            field_offsets: [("p.n".to_string(), 8)].into_iter().collect(),
            buffer_bytes: [
                ("x".to_string(), Scalar::Int(1 << 20)),
                (
                    "p.y".to_string(),
                    Scalar::Unknown("the pitch cudaMallocPitch chooses".into()),
                ),
            ]
            .into_iter()
            .collect(),
            buffer_data: [(
                "x".to_string(),
                BufferData {
                    bytes: vec![0, 1, 0xfe, 0xff],
                    drawn: None,
                    after_a_kernel: true,
                    zeros_for: Some("an uninitialised variable".into()),
                },
            )]
            .into_iter()
            .collect(),
            count: 3,
            count_note: Some("a lower bound".into()),
            file: "/src/main.cu".into(),
            line: 12,
            col: 5,
            api: "<<<>>>".into(),
            conditions: vec!["`n > 0`".into()],
            via: vec!["run (main.cu:40)".into()],
            calls: vec![CallSite {
                function: "run".into(),
                file: "/src/main.cu".into(),
                line: 40,
            }],
            order: vec![1],
        }
    }

    /// What a reading holds, written out in full (`Debug` shows every field, the reasons
    /// `Serialize` drops among them), to compare two readings by.
    fn shown(r: &HostReading) -> String {
        format!(
            "{:?} {:?} {:?} {:?} {:?} {:?} {} {:?}",
            r.launches,
            r.unreached,
            r.assumptions,
            r.params_used,
            r.diagnostics,
            r.notes,
            r.steps,
            r.embedded
        )
    }

    #[test]
    fn a_reading_reads_back_whole() {
        let r = HostReading {
            launches: vec![launch()],
            unreached: vec![Unreached {
                kernel: Some("k".into()),
                symbol: None,
                file: "/src/main.cu".into(),
                line: 3,
                api: "<<<>>>".into(),
                function: "never".into(),
                reason: "never called".into(),
            }],
            assumptions: [("bs".to_string(), "read from a file".to_string())]
                .into_iter()
                .collect(),
            params_used: ["n".to_string()].into_iter().collect(),
            diagnostics: vec!["main.cu:1:1: error: x".into()],
            notes: vec!["a note".into()],
            missing_inputs: [("in.txt".to_string(), "fopen".to_string())]
                .into_iter()
                .collect(),
            steps: 1234,
            embedded: vec![EmbeddedSource {
                api: "clCreateProgramWithSource".into(),
                language: "opencl".into(),
                text: Some("__kernel void k() {}".into()),
                unknown: None,
                origin: SourceOrigin::Lines {
                    file: "/src/main.c".into(),
                    lines: vec![4, 5],
                },
                kernels: vec!["k".into()],
                options: vec!["-DREPS=3".into()],
                name_expressions: Vec::new(),
                extern_c: false,
                headers: vec![("h.h".into(), "#define X 1".into())],
                name: None,
                file: "/src/main.c".into(),
                line: 9,
            }],
            inputs: None,
            kernels_defined: Some(
                [(
                    "/src/k.cu".into(),
                    ["fill".to_string()].into_iter().collect(),
                )]
                .into_iter()
                .collect(),
            ),
        };
        let text = serde_json::to_string(&StoredReading::of(&r)).unwrap();
        let back: StoredReading = serde_json::from_str(&text).unwrap();
        let back = back.reading();
        assert_eq!(shown(&back), shown(&r));
        // NaN is not equal to itself, so its bits are compared
        let bits = |r: &HostReading| match &r.launches[0].args["a"] {
            Scalar::Float(f) => f.to_bits(),
            _ => 0,
        };
        assert_eq!(bits(&back), bits(&r));
        assert_eq!(back.launches[0].arg_order, r.launches[0].arg_order);
        assert_eq!(back.kernels_defined, r.kernels_defined);
    }
}
