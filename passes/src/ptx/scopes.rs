//! Register scopes, resolved once after parsing so every analysis can read a function's body
//! flattened: registers a nested `{ }` redeclares are renamed apart, and registers declared
//! without a `%` become register operands.

use super::ir::*;

/// Registers a nested `{ }` scope declares under a name an enclosing scope already declares
/// (inline assembly's `{ .reg .u32 %r1, …; }` inside a function with `%r<38>`) are distinct
/// registers in PTX. Every analysis reads a function's body flattened, so such a declaration and
/// the uses it governs are renamed `{name}_s{k}_` (a range's prefix likewise), unique in the
/// function; declarations that shadow nothing keep their names.
pub(super) fn resolve_scopes(m: &mut Module) {
    /// A visible register declaration: exact name, or a `%r<n>` range.
    fn covers(d: &Declared, name: &str) -> bool {
        match d.1 {
            None => d.0 == name,
            Some(n) => name
                .strip_prefix(d.0.as_str())
                .and_then(|k| (!k.is_empty() && k.bytes().all(|b| b.is_ascii_digit())).then_some(k))
                .and_then(|k| k.parse::<u32>().ok())
                .is_some_and(|k| k < n),
        }
    }
    /// A register declaration: name (or range prefix), and the `<n>` of a range.
    type Declared = (String, Option<u32>);
    /// One open scope: its declarations, and the ones renamed with their new names.
    type Scope = (Vec<Declared>, Vec<(Declared, String)>);
    struct Scopes {
        stack: Vec<Scope>,
        next: usize,
    }
    impl Scopes {
        fn rename(&self, name: &str) -> Option<String> {
            for (_, renamed) in self.stack.iter().rev() {
                for (d, new) in renamed {
                    if covers(d, name) {
                        return Some(match d.1 {
                            None => new.clone(),
                            Some(_) => format!("{new}{}", &name[d.0.len()..]),
                        });
                    }
                }
            }
            None
        }
        fn shadows(&self, d: &Declared) -> bool {
            let probe = match d.1 {
                None => d.0.clone(),
                Some(_) => format!("{}0", d.0),
            };
            self.stack
                .iter()
                .any(|(decls, _)| decls.iter().any(|o| covers(o, &probe) || *o == *d))
        }
    }
    fn operand(o: &mut Operand, sc: &Scopes) {
        o.for_each_leaf_mut(&mut |leaf| {
            if let Operand::Reg(r)
            | Operand::Symbol(r)
            | Operand::Addr {
                base: AddrBase::Reg(r) | AddrBase::Symbol(r),
                ..
            } = leaf
            {
                if let Some(n) = sc.rename(r) {
                    *r = n;
                }
            }
        })
    }
    fn walk(body: &mut [Statement], sc: &mut Scopes, nested: bool) {
        let mut decls = Vec::new();
        let mut renamed = Vec::new();
        for s in body.iter_mut() {
            if let Statement::Decl(d) = s {
                if d.space != StateSpace::Reg {
                    continue;
                }
                let key = (d.name.clone(), d.range);
                if nested && sc.shadows(&key) {
                    sc.next += 1;
                    let new = format!("{}_s{}_", d.name, sc.next);
                    renamed.push((key.clone(), new.clone()));
                    d.name = new;
                }
                decls.push(key);
            }
        }
        sc.stack.push((decls, renamed));
        for s in body.iter_mut() {
            match s {
                Statement::Inst(i) => {
                    i.operands.iter_mut().for_each(|o| operand(o, sc));
                    if let Some(g) = i.pred.as_mut() {
                        if let Some(n) = sc.rename(&g.reg) {
                            g.reg = n;
                        }
                    }
                }
                Statement::Block(b) => walk(&mut b.body, sc, true),
                _ => {}
            }
        }
        sc.stack.pop();
    }
    for f in &mut m.functions {
        let mut sc = Scopes {
            stack: Vec::new(),
            next: 0,
        };
        walk(&mut f.body, &mut sc, false);
    }
}

/// Registers declared without a `%` (`{ .reg .pred p; .reg .f32 r0; shfl.sync.down.b32 r0|p, …}`,
/// as inline assembly in CUB and cooperative groups writes them) parse as symbols; where a name
/// is a register declared in the function, its operands become `Operand::Reg` (printed the same).
pub(super) fn resolve_bare_registers(m: &mut Module) {
    fn declared(body: &[Statement], out: &mut std::collections::BTreeSet<String>) {
        for s in body {
            match s {
                Statement::Decl(d) if d.space == StateSpace::Reg && !d.name.starts_with('%') => {
                    out.insert(d.name.clone());
                }
                Statement::Block(b) => declared(&b.body, out),
                _ => {}
            }
        }
    }
    fn operand(o: &mut Operand, regs: &std::collections::BTreeSet<String>) {
        o.for_each_leaf_mut(&mut |leaf| match leaf {
            Operand::Symbol(s) if regs.contains(s.as_str()) => *leaf = Operand::Reg(s.clone()),
            Operand::Addr { base, .. } => {
                if let AddrBase::Symbol(s) = base {
                    if regs.contains(s.as_str()) {
                        *base = AddrBase::Reg(s.clone());
                    }
                }
            }
            _ => {}
        })
    }
    fn walk(body: &mut [Statement], regs: &std::collections::BTreeSet<String>) {
        for s in body {
            match s {
                Statement::Inst(i) => i.operands.iter_mut().for_each(|o| operand(o, regs)),
                Statement::Block(b) => walk(&mut b.body, regs),
                _ => {}
            }
        }
    }
    for f in &mut m.functions {
        let mut regs = std::collections::BTreeSet::new();
        declared(&f.body, &mut regs);
        if !regs.is_empty() {
            walk(&mut f.body, &regs);
        }
    }
}
