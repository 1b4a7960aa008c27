//! The printer: `Display` for the IR, in the layout nvcc uses (tabs, one statement a line).
//! Its contract is that parsing the printed text gives back the same module (spans aside) and
//! that ptxas accepts it; it does not try to reproduce the original whitespace or comments.

use super::ir::*;
use std::fmt::{self, Display, Formatter, Write};

impl Display for Module {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        if let Some(v) = self.version {
            writeln!(f, ".version {}.{}", v.major, v.minor)?;
        }
        if !self.target.is_empty() {
            writeln!(f, ".target {}", self.target.join(", "))?;
        }
        if let Some(a) = self.address_size {
            writeln!(f, ".address_size {a}")?;
        }
        for item in &self.order {
            writeln!(f)?;
            match *item {
                ItemRef::Global(i) => writeln!(f, "{};", self.globals[i])?,
                ItemRef::Function(i) => write!(f, "{}", self.functions[i])?,
                ItemRef::File(i) => writeln!(f, "{}", self.files[i])?,
                ItemRef::Directive(i) => writeln!(f, "{}", self.directives[i])?,
            }
        }
        Ok(())
    }
}

impl Display for FileDecl {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, ".file\t{} {}", self.index, quote(&self.name))?;
        if let Some(e) = &self.extra {
            write!(f, ", {e}")?;
        }
        Ok(())
    }
}

impl Display for Directive {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match &self.braced {
            Some(inner) => write!(f, ".{}\t{}\n{{\n{}\n}}", self.name, self.text, inner),
            None if self.text.is_empty() => write!(f, ".{};", self.name),
            None => write!(f, ".{} {};", self.name, self.text),
        }
    }
}

impl Display for Function {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        if let Some(l) = self.linkage {
            write!(f, ".{} ", l.as_str())?;
        }
        f.write_str(if self.is_entry { ".entry " } else { ".func " })?;
        if !self.ret_params.is_empty() {
            f.write_char('(')?;
            for (i, p) in self.ret_params.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write!(f, "{p}")?;
            }
            f.write_str(") ")?;
        }
        f.write_str(&self.name)?;
        f.write_str("(\n")?;
        for (i, p) in self.params.iter().enumerate() {
            write!(f, "\t{p}")?;
            f.write_str(if i + 1 < self.params.len() {
                ",\n"
            } else {
                "\n"
            })?;
        }
        f.write_str(")\n")?;
        for p in &self.perf {
            write!(f, ".{}", p.name)?;
            let mut first = true;
            for v in &p.values {
                f.write_str(if first { " " } else { ", " })?;
                write!(f, "{v}")?;
                first = false;
            }
            for s in &p.strings {
                f.write_str(if first { " " } else { ", " })?;
                f.write_str(&quote(s))?;
                first = false;
            }
            if !p.strings.is_empty() {
                f.write_char(';')?;
            }
            f.write_char('\n')?;
        }
        if self.is_declaration {
            return f.write_str(";\n");
        }
        f.write_str("{\n")?;
        write_body(f, &self.body, 1)?;
        f.write_str("}\n")
    }
}

fn write_body(f: &mut Formatter<'_>, body: &[Statement], depth: usize) -> fmt::Result {
    for s in body {
        if !matches!(s, Statement::Label(_)) {
            for _ in 0..depth {
                f.write_char('\t')?;
            }
        }
        match s {
            Statement::Inst(i) => writeln!(f, "{i}")?,
            Statement::Label(l) => writeln!(f, "{}:", l.name)?,
            Statement::Decl(d) => writeln!(f, "{d};")?,
            Statement::Loc(l) => {
                write!(f, ".loc\t{} {} {}", l.file, l.line, l.col)?;
                if let Some(e) = &l.extra {
                    write!(f, ", {e}")?;
                }
                f.write_char('\n')?;
            }
            Statement::Pragma(p) => {
                f.write_str(".pragma ")?;
                for (i, s) in p.strings.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    f.write_str(&quote(s))?;
                }
                f.write_str(";\n")?;
            }
            Statement::Directive(d) => writeln!(f, "{d}")?,
            Statement::Block(b) => {
                f.write_str("{\n")?;
                write_body(f, &b.body, depth + 1)?;
                for _ in 0..depth {
                    f.write_char('\t')?;
                }
                f.write_str("}\n")?;
            }
        }
    }
    Ok(())
}

impl Display for VarDecl {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        if let Some(l) = self.linkage {
            write!(f, ".{} ", l.as_str())?;
        }
        write!(f, ".{}", self.space.as_str())?;
        if let Some(a) = &self.attribute {
            write!(f, " .attribute({a})")?;
        }
        if let Some(a) = self.align {
            write!(f, " .align {a}")?;
        }
        if let Some(v) = self.vector {
            write!(f, " .v{v}")?;
        }
        write!(f, " .{}", self.ty.as_str())?;
        if let Some(p) = &self.ptr {
            f.write_str(" .ptr")?;
            if let Some(s) = p.space {
                write!(f, " .{}", s.as_str())?;
            }
            if let Some(a) = p.align {
                write!(f, " .align {a}")?;
            }
        }
        write!(f, " {}", self.name)?;
        if let Some(n) = self.range {
            write!(f, "<{n}>")?;
        }
        for d in &self.array {
            match d {
                Some(n) => write!(f, "[{n}]")?,
                None => f.write_str("[]")?,
            }
        }
        if let Some(i) = &self.init {
            write!(f, " = {i}")?;
        }
        Ok(())
    }
}

impl Display for Initializer {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Initializer::Value(o) => write!(f, "{o}"),
            Initializer::Generic(s) => write!(f, "generic({s})"),
            Initializer::List(items) => {
                f.write_char('{')?;
                for (i, x) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{x}")?;
                }
                f.write_char('}')
            }
        }
    }
}

impl Display for Inst {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        if let Some(g) = &self.pred {
            write!(f, "@{}{} ", if g.negated { "!" } else { "" }, g.reg)?;
        }
        f.write_str(&self.full_opcode())?;
        for (i, o) in self.operands.iter().enumerate() {
            f.write_str(if i == 0 { " \t" } else { ", " })?;
            write!(f, "{o}")?;
        }
        f.write_char(';')
    }
}

impl Display for SReg {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let (name, dim) = match self {
            SReg::Tid(d) => ("%tid", Some(d)),
            SReg::Ntid(d) => ("%ntid", Some(d)),
            SReg::Ctaid(d) => ("%ctaid", Some(d)),
            SReg::Nctaid(d) => ("%nctaid", Some(d)),
            SReg::Laneid => ("%laneid", None),
            SReg::Warpid => ("%warpid", None),
            SReg::Nwarpid => ("%nwarpid", None),
            SReg::Smid => ("%smid", None),
            SReg::Nsmid => ("%nsmid", None),
            SReg::Gridid => ("%gridid", None),
            SReg::Clock => ("%clock", None),
            SReg::Clock64 => ("%clock64", None),
            SReg::Globaltimer => ("%globaltimer", None),
            SReg::LanemaskEq => ("%lanemask_eq", None),
            SReg::LanemaskLe => ("%lanemask_le", None),
            SReg::LanemaskLt => ("%lanemask_lt", None),
            SReg::LanemaskGe => ("%lanemask_ge", None),
            SReg::LanemaskGt => ("%lanemask_gt", None),
            SReg::DynamicSmemSize => ("%dynamic_smem_size", None),
            SReg::TotalSmemSize => ("%total_smem_size", None),
            SReg::Other(s) => (s.as_str(), None),
        };
        f.write_str(name)?;
        if let Some(d) = dim {
            write!(f, ".{}", d.as_str())?;
        }
        Ok(())
    }
}

fn write_list(f: &mut Formatter<'_>, open: char, items: &[Operand], close: char) -> fmt::Result {
    f.write_char(open)?;
    for (i, x) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{x}")?;
    }
    f.write_char(close)
}

impl Display for Operand {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Operand::Reg(r) => f.write_str(r),
            Operand::SpecialReg(s) => write!(f, "{s}"),
            Operand::Imm(v) => write!(f, "{v}"),
            Operand::ImmF32(b) => write!(f, "0f{b:08X}"),
            Operand::ImmF64(b) => write!(f, "0d{b:016X}"),
            Operand::ImmFloat(b) => f.write_str(&decimal_float(f64::from_bits(*b))),
            Operand::Addr { base, offset } => {
                f.write_char('[')?;
                match base {
                    AddrBase::Reg(s) | AddrBase::Symbol(s) => {
                        f.write_str(s)?;
                        if *offset != 0 {
                            write!(f, "+{offset}")?;
                        }
                    }
                    AddrBase::None => write!(f, "{}", *offset as u64)?,
                }
                f.write_char(']')
            }
            Operand::AddrList(v) => write_list(f, '[', v, ']'),
            Operand::Vector(v) => write_list(f, '{', v, '}'),
            Operand::List(v) => write_list(f, '(', v, ')'),
            Operand::Pair(a, b) => write!(f, "{a}|{b}"),
            Operand::Not(a) => write!(f, "!{a}"),
            Operand::Sink => f.write_char('_'),
            Operand::Symbol(s) | Operand::Label(s) => f.write_str(s),
            Operand::SymOffset { name, offset } => write!(f, "{name}+{offset}"),
        }
    }
}

/// A decimal float literal that PTX accepts (always with a `.`) and that parses back to `v`.
fn decimal_float(v: f64) -> String {
    let s = format!("{:?}", v.abs());
    let s = if s.contains('.') {
        s
    } else if let Some((m, e)) = s.split_once('e') {
        format!("{m}.0e{e}")
    } else {
        format!("{s}.0")
    };
    if v.is_sign_negative() {
        format!("-{s}")
    } else {
        s
    }
}

fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
