//! The instruction vocabulary of gpuPTXModel (its `assembly_info/` files) and the decoding of its
//! 9-digit per-instruction codes `%03d%01d%02d%01d%01d%01d` = (opcode, state space, type, operand
//! count, dependency distance, dependency kind). Kept byte-compatible with the released data so that
//! the sequences can be read without re-parsing PTX; the class mapping below is kerncast's own.

/// The 101 opcodes of `ptx_isa.txt`, in order (id = index).
pub const OPCODES: [&str; 101] = [
    "add",
    "sub",
    "mul",
    "mad",
    "mul24",
    "mad24",
    "sad",
    "div",
    "rem",
    "abs",
    "neg",
    "min",
    "max",
    "popc",
    "clz",
    "bfind",
    "fns",
    "brev",
    "bfe",
    "bfi",
    "dp4a",
    "dp2a",
    "add.cc",
    "addc",
    "sub.cc",
    "subc",
    "mad.cc",
    "madc",
    "testp",
    "copysign",
    "fma",
    "rcp",
    "sqrt",
    "rsqrt",
    "sin",
    "cos",
    "lg2",
    "ex2",
    "selp",
    "slct",
    "set",
    "setp",
    "and",
    "or",
    "xor",
    "not",
    "cnot",
    "lop3",
    "shf",
    "shl",
    "shr",
    "mov",
    "shfl",
    "prmt",
    "ld",
    "ldu",
    "st",
    "prefetch",
    "prefetchu",
    "isspacep",
    "cvta",
    "cvt",
    "suld",
    "sust",
    "sured",
    "suq",
    "bra",
    "call",
    "ret",
    "exit",
    "bar",
    "bar.warp.sync",
    "membar",
    "atom",
    "red",
    "vote",
    "match.sync",
    "activemask",
    "vadd",
    "vadd2",
    "vadd4",
    "vsub",
    "vsub2",
    "vsub4",
    "vmad",
    "vavrg2",
    "vavrg4",
    "vabsdiff",
    "vabsdiff2",
    "vabsdiff4",
    "vmin",
    "vmin2",
    "vmin4",
    "vmax",
    "vmax2",
    "vmax4",
    "vshl",
    "vshr",
    "vset",
    "vset2",
    "vset4",
];
/// `ptx_state_spaces.txt` (id = index + 1, 0 = none).
pub const SPACES: [&str; 8] = [
    "reg", "sreg", "const", "global", "local", "param", "shared", "tex",
];
/// `ptx_instruction_types.txt` (id = index + 1, 0 = none).
pub const TYPES: [&str; 17] = [
    "b8", "b16", "b32", "b64", "s8", "s16", "s32", "s64", "u8", "u16", "u32", "u64", "f16x2",
    "f16", "f32", "f64", "pred",
];

/// One decoded instruction of a released sequence file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Inst {
    pub opcode: u8,
    pub space: u8,
    pub ty: u8,
    pub n_ops: u8,
    pub dep_dist: u8,
    pub dep_kind: u8,
}

impl Inst {
    /// Decodes one 9-digit code; `None` when it is not 9 digits or a field is out of range.
    pub fn decode(code: &str) -> Option<Inst> {
        let b = code.as_bytes();
        if b.len() != 9 || !b.iter().all(u8::is_ascii_digit) {
            return None;
        }
        let d = |i: usize| (b[i] - b'0') as usize;
        let (opcode, space, ty) = (d(0) * 100 + d(1) * 10 + d(2), d(3), d(4) * 10 + d(5));
        let ok = opcode < OPCODES.len() && space <= SPACES.len() && ty <= TYPES.len() && d(8) <= 3;
        ok.then_some(Inst {
            opcode: opcode as u8,
            space: space as u8,
            ty: ty as u8,
            n_ops: d(6) as u8,
            dep_dist: d(7) as u8,
            dep_kind: d(8) as u8,
        })
    }

    pub fn opcode_name(&self) -> &'static str {
        OPCODES[self.opcode as usize]
    }

    pub fn space_name(&self) -> Option<&'static str> {
        (self.space > 0).then(|| SPACES[self.space as usize - 1])
    }

    pub fn type_name(&self) -> Option<&'static str> {
        (self.ty > 0).then(|| TYPES[self.ty as usize - 1])
    }

    /// kerncast's execution class of the instruction (the unit or memory level it loads).
    pub fn class(&self) -> Class {
        let op = self.opcode_name();
        match op {
            "ld" | "ldu" | "st" | "prefetch" | "prefetchu" => match self.space_name() {
                Some("shared") => Class::Shared,
                Some("local") => Class::Local,
                Some("param") | Some("const") => Class::Param,
                _ if op == "st" => Class::GlobalSt,
                _ => Class::GlobalLd,
            },
            "atom" | "red" => Class::Atomic,
            "rcp" | "sqrt" | "rsqrt" | "sin" | "cos" | "lg2" | "ex2" => Class::Sfu,
            "bra" | "call" | "ret" | "exit" | "bar" | "bar.warp.sync" | "membar" | "vote"
            | "match.sync" | "activemask" => Class::Control,
            "mov" | "cvta" | "cvt" | "isspacep" => Class::Move,
            _ => match self.type_name() {
                Some("f64") => Class::Dp,
                Some("f32") | Some("f16") | Some("f16x2") => Class::Sp,
                _ => Class::Int,
            },
        }
    }
}

/// Instruction classes used by the analytical and regression models (the "instruction mix").
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Class {
    Sp,
    Dp,
    Int,
    Sfu,
    GlobalLd,
    GlobalSt,
    Shared,
    Local,
    Param,
    Atomic,
    Control,
    Move,
}

impl Class {
    pub const ALL: [Class; 12] = [
        Class::Sp,
        Class::Dp,
        Class::Int,
        Class::Sfu,
        Class::GlobalLd,
        Class::GlobalSt,
        Class::Shared,
        Class::Local,
        Class::Param,
        Class::Atomic,
        Class::Control,
        Class::Move,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Class::Sp => "sp",
            Class::Dp => "dp",
            Class::Int => "int",
            Class::Sfu => "sfu",
            Class::GlobalLd => "global_ld",
            Class::GlobalSt => "global_st",
            Class::Shared => "shared",
            Class::Local => "local",
            Class::Param => "param",
            Class::Atomic => "atomic",
            Class::Control => "control",
            Class::Move => "move",
        }
    }

    pub fn index(self) -> usize {
        Class::ALL.iter().position(|c| *c == self).unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_the_papers_examples() {
        // Examples quoted in notes/seed-003 from the released BlackScholes data.
        let ld = Inst::decode("054612200").unwrap();
        assert_eq!(
            (ld.opcode_name(), ld.space_name(), ld.type_name(), ld.n_ops),
            ("ld", Some("param"), Some("u64"), 2)
        );
        assert_eq!(ld.class(), Class::Param);
        let mad = Inst::decode("003007410").unwrap();
        assert_eq!(
            (mad.opcode_name(), mad.type_name(), mad.dep_dist),
            ("mad", Some("s32"), 1)
        );
        assert_eq!(mad.class(), Class::Int);
        let g = Inst::decode("054415310").unwrap();
        assert_eq!(
            (g.space_name(), g.type_name()),
            (Some("global"), Some("f32"))
        );
        assert_eq!(g.class(), Class::GlobalLd);
        assert!(Inst::decode("99999999").is_none());
        assert!(Inst::decode("999000000").is_none());
    }
}
